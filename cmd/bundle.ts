// Bundles each controller binary (catalogd, operator-controller, olm-classic) with esbuild into
// <dist>/bin/<name>/main.mjs, which cmd/entrypoint.sh runs in the image: one module to load instead of
// ~450–550 files resolved one by one (start-up time and RSS measured by bench/footprint.ts). Modules
// the code imports lazily (`await import(...)`: @kubernetes/client-node for exec users, graphql
// behind its feature gate, …) become chunks loaded only when used; packages loaded with
// createRequire on first use (logic-solver, @grpc/*) stay in node_modules. Files read next to a
// module at run time (ASSETS) are copied next to the output that holds that module.
// Run after tsc by the Dockerfile, `make build` and `npm run build`: `node --import tsx cmd/bundle.ts [<dist>]`.
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CONTROLLERS = ['catalogd', 'operator-controller', 'olm-classic'] as const;

/** What the controllers' and the CLI's bundles share: ES modules for Node 22 and later split into lazily loaded chunks. */
export const NODE_ESM_BUNDLE = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22.13',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __olmCreateRequire } from 'node:module'; const require = __olmCreateRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * undici's HTTP/2 client requires `node:http2` when it is loaded (a fallback of `{ constants: {} }` when that fails),
 * and HTTP/2 is never turned on here (no `allowH2`): in the bundles that require fails at once, so starting a controller
 * does not load Node's http2 internals (~10 ms). The gRPC client (olm-classic) loads its own http2 from node_modules.
 */
export const WITHOUT_UNDICI_H2: Plugin = {
  name: 'without-undici-h2',
  setup(b) {
    b.onResolve({ filter: /^node:http2$/ }, (args) => (/undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer) ? { path: 'http2', namespace: 'without-undici-h2' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'without-undici-h2' }, () => ({ contents: "throw new Error('HTTP/2 is left out of this bundle');", loader: 'js' }));
  },
};

/**
 * prom-client's process CPU metric requires `@opentelemetry/api` when it loads, to read the active span for
 * exemplars — which only `enableExemplars` turns on, and the controllers never do. In the bundles it gets a stand-in
 * with no active span (~45 KiB less to load at start-up).
 */
export const WITHOUT_OTEL: Plugin = {
  name: 'without-otel',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\/api$/ }, (args) => (/prom-client[\\/]lib[\\/]metrics[\\/]processCpuTotal\.js$/.test(args.importer) ? { path: 'otel', namespace: 'without-otel' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'without-otel' }, () => ({
      contents: 'module.exports = { trace: { getSpan: () => undefined }, context: { active: () => undefined } };',
      loader: 'js',
    }));
  },
};

/**
 * prom-client's metric classes are CommonJS, whose imports esbuild keeps even when nothing uses them: catalogd and
 * operator-controller would load the Summary class (and its t-digest and red-black tree, ~15 KiB) that only
 * olm-classic's resolver metric uses. Marked free of side effects, a class nothing uses is left out.
 */
export const PROM_CLASSES_PURE: Plugin = {
  name: 'prom-classes-pure',
  setup(b) {
    b.onResolve({ filter: /^prom-client\/lib\/summary\.js$/ }, async (args) => {
      if (args.pluginData === 'prom-classes-pure') return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'prom-classes-pure' });
      return resolved.errors.length ? { errors: resolved.errors } : { path: resolved.path, sideEffects: false };
    });
  },
};

/** Files a module reads beside itself (`new URL('./x', import.meta.url)`): [module, file], both from the checkout root. */
const ASSETS: readonly (readonly [string, string])[] = [['internal/classic/registryclient/client.ts', 'internal/classic/registryclient/registry.proto']];

export async function bundleControllers(dist = join(root, 'dist')): Promise<{ readonly name: string; readonly files: number; readonly inputs: number }[]> {
  const out: { name: string; files: number; inputs: number }[] = [];
  for (const name of CONTROLLERS) {
    const outdir = join(dist, 'bin', name);
    const tmp = `${outdir}.tmp-${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    const result = await build({
      entryPoints: { main: join(root, 'cmd', name, 'main.ts') },
      outdir: tmp,
      absWorkingDir: root,
      ...NODE_ESM_BUNDLE,
      // Names stay: stack traces and `err.name`/class names in logs must read as in the sources.
      keepNames: true,
      sourcemap: 'linked',
      plugins: [WITHOUT_UNDICI_H2, WITHOUT_OTEL, PROM_CLASSES_PURE],
    });
    for (const [module, file] of ASSETS) {
      for (const [output, meta] of Object.entries(result.metafile.outputs)) {
        if (Object.keys(meta.inputs).some((i) => resolve(root, i) === join(root, module))) {
          await copyFile(join(root, file), join(dirname(resolve(root, output)), file.split('/').pop()!));
        }
      }
    }
    await writeFile(join(tmp, 'package.json'), '{ "type": "module" }\n');
    await writeFile(join(tmp, 'startup.json'), `${JSON.stringify(startupBytes(result.metafile), null, 1)}\n`);
    await rm(outdir, { recursive: true, force: true });
    await mkdir(dirname(outdir), { recursive: true });
    await rename(tmp, outdir);
    const inputs = Object.keys(result.metafile.inputs).length;
    out.push({ name, files: Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.mjs')).length, inputs });
  }
  return out;
}

/**
 * Bytes of the outputs a start loads per npm package, and per folder of our own code (`internal/<capability>`,
 * `internal/shared/<library>`): what start-up parses, for bench/footprint.ts and the bundles test. A start loads the
 * entry, everything the entry imports (`cmd/<name>/main.ts` imports the binary, `run.ts`, dynamically: see
 * internal/shared/warmup) and what those import statically; below the entry a dynamic import is loaded on first use.
 */
function startupBytes(meta: Metafile): Record<string, number> {
  const outputs = meta.outputs;
  const loaded = new Set<string>();
  const walk = (file: string, entry = false): void => {
    if (loaded.has(file) || !outputs[file]) return;
    loaded.add(file);
    for (const i of outputs[file].imports) if (entry || i.kind === 'import-statement') walk(i.path);
  };
  walk(Object.keys(outputs).find((f) => f.endsWith('/main.mjs'))!, true);
  const bytes: Record<string, number> = {};
  for (const file of loaded) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[file]!.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? /^(internal\/shared\/[^/]+|internal\/[^/]+|api|cmd)\//.exec(input)?.[1] ?? input;
      bytes[pkg] = (bytes[pkg] ?? 0) + bytesInOutput;
    }
  }
  return Object.fromEntries(Object.entries(bytes).sort((a, b) => b[1] - a[1]));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dist = process.argv[2] ? resolve(process.argv[2]) : join(root, 'dist');
  for (const r of await bundleControllers(dist)) console.log(`${r.name} bundled into ${relative(process.cwd(), join(dist, 'bin', r.name)) || '.'} (${r.files} modules from ${r.inputs} sources)`);
}
