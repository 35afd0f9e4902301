// Typings for the prom-client 15 files internal/shared/observability/prom.ts imports one by one (prom-client ships
// .d.ts only for its index). Each is prom-client's own type for what the CommonJS file assigns to `module.exports`.
declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export = Counter;
}
declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export = Gauge;
}
declare module 'prom-client/lib/histogram.js' {
  import { Histogram } from 'prom-client';
  export = Histogram;
}
declare module 'prom-client/lib/summary.js' {
  import { Summary } from 'prom-client';
  export = Summary;
}
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export = Registry;
}
declare module 'prom-client/lib/bucketGenerators.js' {
  export { exponentialBuckets, linearBuckets } from 'prom-client';
}
declare module 'prom-client/lib/defaultMetrics.js' {
  import { collectDefaultMetrics } from 'prom-client';
  export = collectDefaultMetrics;
}
