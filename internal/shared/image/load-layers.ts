// loadLayerPipeline: the layer pipeline (decompression, tar, apply), imported the first time an image is unpacked.
import type * as LayerPipeline from './layers.ts';

export const loadLayerPipeline = (): Promise<typeof LayerPipeline> => import('./layers.ts');
