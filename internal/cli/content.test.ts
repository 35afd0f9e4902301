import { describe, expect, it } from 'vitest';
import type { ClusterCatalog } from '../../api/v1/index.ts';
import { isServing, serviceProxyPath } from './content.ts';

describe('serviceProxyPath', () => {
  it('goes through the API server for in-cluster Service addresses', () => {
    expect(serviceProxyPath('https://catalogd-service.olmv1-system.svc/catalogs/operatorhubio')).toBe(
      '/api/v1/namespaces/olmv1-system/services/https:catalogd-service:443/proxy/catalogs/operatorhubio',
    );
    expect(serviceProxyPath('http://catalogd.olmv1-system.svc.cluster.local:8443/catalogs/x/')).toBe('/api/v1/namespaces/olmv1-system/services/http:catalogd:8443/proxy/catalogs/x');
  });

  it('leaves reachable addresses alone', () => {
    expect(serviceProxyPath('http://127.0.0.1:18443/catalogs/olm-demo')).toBeUndefined();
    expect(serviceProxyPath('https://catalogd.example.com/catalogs/x')).toBeUndefined();
    expect(serviceProxyPath('not a url')).toBeUndefined();
  });
});

describe('isServing', () => {
  const cat = (serving: 'True' | 'False', reason = 'Available', resolved = true): ClusterCatalog => ({
    metadata: { name: 'c' },
    spec: { source: { type: 'Image', image: { ref: 'r' } } },
    status: {
      conditions: [{ type: 'Serving', status: serving, reason, message: '', lastTransitionTime: '' }],
      ...(resolved && { resolvedSource: { type: 'Image', image: { ref: 'r@sha256:0' } }, urls: { base: 'http://x/catalogs/c' } }),
    },
  });
  it('needs Serving=True (Available) and a resolved image and URL', () => {
    expect(isServing(cat('True'))).toBe(true);
    expect(isServing(cat('False', 'Unavailable'))).toBe(false);
    expect(isServing(cat('True', 'Available', false))).toBe(false);
  });
});
