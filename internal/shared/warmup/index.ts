// Work a controller's start would otherwise do on its main thread, begun first on another thread. See README.md.
export { warmRootCertificates } from './roots.ts';
