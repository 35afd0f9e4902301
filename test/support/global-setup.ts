// vitest globalSetup for the integration project: one cluster (kube-apiserver + etcd,
// controller-manager, scheduler, KWOK nodes) and one registry for the whole run, CRDs from config/crd and policies from config/admission installed. Tests
// reach them with `cluster()` and `registry()` from ./env.ts. Teardown stops both and checks
// that no process is left.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ControlPlane } from './control-plane.ts';
import { installAdmissionPolicies } from './admission.ts';
import { installCrds, yamlFiles } from './crds.ts';
import { TestKube } from './kube.ts';
import { processAlive } from './net.ts';
import { Registry } from './registry.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const cp = new ControlPlane();
  const reg = new Registry();
  const [info, regInfo] = await Promise.all([cp.start(), reg.start()]);
  const crdDir = fileURLToPath(new URL('../../config/crd/bases', import.meta.url));
  if (existsSync(crdDir)) await installCrds(new TestKube(info), await yamlFiles(crdDir));
  const admissionDir = fileURLToPath(new URL('../../config/admission', import.meta.url));
  if (existsSync(admissionDir)) await installAdmissionPolicies(new TestKube(info), admissionDir);
  project.provide('controlPlane', info);
  project.provide('registry', regInfo);
  console.log(`[global-setup] cluster ${info.server} (${info.nodes.length} nodes) and registry ${regInfo.host} ready in ${Date.now() - started}ms`);
  return async () => {
    const pids = [...cp.pids, reg.pid].filter((p): p is number => p !== undefined);
    await Promise.all([cp.stop(), reg.stop()]);
    const left = pids.filter(processAlive);
    if (left.length) throw new Error(`teardown left processes behind: ${left.join(', ')}`);
  };
}
