import { describe, expect, it } from 'vitest';
import { adminKube, controlPlane, registry } from '../../support/env.ts';
import type { Status } from '../../support/kube.ts';

describe('shared test control plane', () => {
  it('serves Kubernetes v1.36 with the version stamped', async () => {
    const v = await adminKube().must(adminKube().request<{ major: string; minor: string; gitVersion: string }>('GET', '/version'));
    expect(v).toMatchObject({ major: '1', minor: '36' });
    expect(v.gitVersion).toMatch(/^v1\.36\.\d+$/);
  });

  it('gives the admin token system:masters and the static users nothing', async () => {
    const kube = adminKube();
    const ns = await kube.namespace('cp');
    const alice = kube.as({ token: controlPlane().userTokens.alice });
    const r = await alice.request<Status>('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });

  it('issues service-account tokens that authenticate as the account', async () => {
    const kube = adminKube();
    const ns = await kube.namespace('sa');
    const token = await kube.serviceAccountToken(ns, 'runner');
    const review = await kube.as({ token }).request<{ status: { userInfo: { username: string } } }>(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    );
    expect(review.status).toBe(201);
    expect(review.body.status.userInfo.username).toBe(`system:serviceaccount:${ns}:runner`);
  });

  it('runs a registry that speaks the distribution API', async () => {
    const res = await fetch(`${registry().url}/v2/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
  });
});
