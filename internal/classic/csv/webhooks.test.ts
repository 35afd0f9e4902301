import { describe, expect, it } from 'vitest';
import type { OperatorGroup } from '../../../api/operators/index.ts';
import { groupNamespaceSelector, hostsFor, secretName, serviceName, withCertVolumes } from './webhooks.ts';

describe('webhook install pieces', () => {
  it('names: <deployment>-service, <service>-cert, the Service’s three host names', () => {
    expect(serviceName('op')).toBe('op-service');
    expect(secretName('op-service')).toBe('op-service-cert');
    expect(hostsFor('op-service', 'ns')).toEqual(['op-service.ns', 'op-service.ns.svc', 'op-service.ns.svc.cluster.local']);
  });

  it('mounts the certificate as classic does: volumes replaced by name, a mount of the same name kept, one at the same path replaced', () => {
    const spec = {
      template: {
        metadata: { annotations: { a: 'b' } },
        spec: {
          volumes: [{ name: 'webhook-cert', emptyDir: {} }],
          containers: [
            { name: 'one', volumeMounts: [{ name: 'webhook-cert', mountPath: '/elsewhere' }] },
            { name: 'two', volumeMounts: [{ name: 'mine', mountPath: '/apiserver.local.config/certificates' }] },
          ],
        },
      },
    };
    const out = withCertVolumes(spec, 'op-service-cert', 'abc') as typeof spec & { template: { spec: { volumes: object[]; containers: { volumeMounts: object[] }[] } } };
    expect(out.template.metadata.annotations).toEqual({ a: 'b', olmcahash: 'abc' });
    expect(out.template.spec.volumes).toEqual([
      { name: 'webhook-cert', secret: { secretName: 'op-service-cert', items: [{ key: 'tls.crt', path: 'tls.crt' }, { key: 'tls.key', path: 'tls.key' }] } },
      { name: 'apiservice-cert', secret: { secretName: 'op-service-cert', items: [{ key: 'tls.crt', path: 'apiserver.crt' }, { key: 'tls.key', path: 'apiserver.key' }] } },
    ]);
    expect(out.template.spec.containers[0]!.volumeMounts).toEqual([
      { name: 'webhook-cert', mountPath: '/elsewhere' },
      { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
    ]);
    expect(out.template.spec.containers[1]!.volumeMounts).toEqual([
      { name: 'apiservice-cert', mountPath: '/apiserver.local.config/certificates' },
      { name: 'webhook-cert', mountPath: '/tmp/k8s-webhook-server/serving-certs' },
    ]);
    expect(spec.template.metadata.annotations).toEqual({ a: 'b' });
  });

  it('the group’s namespace selector: its uid label for target namespaces, else its selector', () => {
    const og = (spec: OperatorGroup['spec']): OperatorGroup => ({ metadata: { name: 'g', namespace: 'ns', uid: 'u1' }, spec });
    expect(groupNamespaceSelector(og({ targetNamespaces: ['a'] }))).toEqual({ matchLabels: { 'olm.operatorgroup.uid/u1': '' } });
    expect(groupNamespaceSelector(og({ selector: { matchLabels: { x: 'y' } } }))).toEqual({ matchLabels: { x: 'y' } });
    expect(groupNamespaceSelector(og({}))).toBeUndefined();
  });
});
