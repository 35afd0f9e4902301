// Bundle images → read-only directories, through the shared image client's digest cache.
// A pull that cannot succeed by retrying (bad reference; broken content behind a digest) becomes
// a TerminalError with reason Blocked, so the extension reports Progressing=False/Blocked
// instead of retrying forever; everything else is retried with backoff by the controller.
import { ReasonBlocked } from '../../../api/v1/index.ts';
import { TerminalError } from '../../shared/controller/index.ts';
import { isImageError, type ImagePuller } from '../../shared/image/index.ts';
import { BUNDLE_PATHS } from '../../shared/registryv1/index.ts';
import type { BundleUnpacker } from '../controller/index.ts';

export function imageBundleUnpacker(puller: ImagePuller): BundleUnpacker {
  return {
    async unpack(image, signal) {
      try {
        const pulled = await puller.pull(image, { filter: BUNDLE_PATHS, signal });
        return pulled.dir;
      } catch (err) {
        if (isImageError(err) && err.terminal) throw new TerminalError(ReasonBlocked, err.message, { cause: err });
        throw err;
      }
    },
  };
}
