// prom-client's metric classes and registry without its index: the index also loads the cluster aggregator (which
// makes Node load cluster, child_process and dgram when it is imported) and the Pushgateway (http, https, zlib),
// neither of which a controller uses. The production code's one door to prom-client (eslint keeps 'prom-client'
// itself out); the classes are prom-client's own, so `instanceof` and the types are the index's.
import { exponentialBuckets, linearBuckets } from 'prom-client/lib/bucketGenerators.js';
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';
import Summary from 'prom-client/lib/summary.js';

export { Counter, Gauge, Histogram, Registry, Summary, exponentialBuckets, linearBuckets };
