// Crash safety of the CSV side: the real olm-classic binary is killed with SIGKILL at a random moment while a CSV
// installs or is upgraded, then started again; 20 runs in a row. Every run must end in the same state — the target
// CSV Succeeded, exactly its Deployment (owned by it), its OperatorCondition, its copy in the target namespace and
// nothing of the replaced CSV left.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../../api/operators/index.ts';
import { sleep } from '../../../internal/shared/toolkit/index.ts';
import { createCSV, createOperatorGroup, createServiceAccount, csvFor, phaseIs, waitForCSV } from '../../support/classic-olm.ts';
import { installClassicCRDs } from '../../support/crds.ts';
import { adminKube, controlPlane, testNamespaces } from '../../support/env.ts';
import { TestKube } from '../../support/kube.ts';
import { waitFor } from '../../support/net.ts';
import { startBinary, type ControllerProcess } from '../../support/process.ts';

const RUNS = 20;
let cacheDir: string;
const namespaces = testNamespaces();
const kube = (): TestKube => adminKube();

let current: ControllerProcess | undefined;
const startOlmClassic = (): ControllerProcess =>
  (current = startBinary('olm-classic', ['--health-probe-bind-address=0', '--metrics-bind-address=0', `--cache-dir=${cacheDir}`, '--insecure-registries='], {
    KUBECONFIG: controlPlane().kubeconfigPath,
  }));
afterAll(() => current?.stop('SIGKILL'));

beforeAll(async () => {
  await installClassicCRDs(kube());
  cacheDir = await mkdtemp(join(tmpdir(), 'olm-classic-crash-'));
});

const names = async (path: string): Promise<string[]> => ((await kube().must<{ items: { metadata: { name: string } }[] }>(kube().request('GET', path))).items ?? []).map((i) => i.metadata.name).sort();

interface EndState {
  csvs: string[];
  deployments: { name: string; owner: string | undefined; ownerRefs: string[] }[];
  operatorConditions: string[];
  copies: string[];
}

async function endState(ns: string, target: string): Promise<EndState> {
  const deps = await kube().must<{ items: { metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { name: string }[] } }[] }>(
    kube().request('GET', `/apis/apps/v1/namespaces/${ns}/deployments`),
  );
  return {
    csvs: await names(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, ns)),
    deployments: deps.items.map((d) => ({ name: d.metadata.name, owner: d.metadata.labels?.['olm.owner'], ownerRefs: (d.metadata.ownerReferences ?? []).map((r) => r.name) })),
    operatorConditions: await names(TestKube.path(ops.V2, ops.OperatorConditionResource, undefined, ns)),
    copies: await names(TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, undefined, target)),
  };
}

describe('SIGKILL of olm-classic at a random point', () => {
  it(`converges to the same end state, ${RUNS} runs in a row (install, then upgrade)`, async () => {
    let ns = '';
    let target = '';
    for (let run = 0; run < RUNS; run++) {
      const upgrade = run % 2 === 1;
      if (!upgrade) {
        ns = await namespaces.create('crash-csv');
        target = await namespaces.create('crash-target');
        await createOperatorGroup(ns, 'og', { targetNamespaces: [ns, target] });
        await createServiceAccount(ns, 'operator');
        await createCSV(ns, csvFor({ name: 'crash.v1.0.0', deployment: 'crash-controller', image: 'quay.example/crash:v1' }));
      } else {
        await createCSV(ns, csvFor({ name: 'crash.v2.0.0', version: '2.0.0', replaces: 'crash.v1.0.0', deployment: 'crash-controller', image: 'quay.example/crash:v2' }));
      }
      const want = upgrade ? 'crash.v2.0.0' : 'crash.v1.0.0';

      const first = startOlmClassic();
      await first.started;
      await sleep(Math.floor(Math.random() * 2000)); // a kill at a random moment
      await first.stop('SIGKILL');

      const second = startOlmClassic();
      await waitForCSV(ns, want, `Succeeded after the kill (run ${run})`, phaseIs('Succeeded'), 120_000);
      const expected: EndState = {
        csvs: [want],
        deployments: [{ name: 'crash-controller', owner: want, ownerRefs: [want] }],
        operatorConditions: [want],
        copies: [want],
      };
      let got = await endState(ns, target);
      // The replaced CSV is deleted after its replacement succeeded; its OperatorCondition and copy follow.
      await waitFor(`run ${run}: end state`, async () => {
        got = await endState(ns, target);
        return JSON.stringify(got) === JSON.stringify(expected);
      }, { timeoutMs: 60_000 }).catch(() => undefined);
      expect(got, `run ${run} (${want})`).toEqual(expected);
      const copy = await kube().must<ops.ClusterServiceVersion>(kube().request('GET', TestKube.path(ops.V1alpha1, ops.ClusterServiceVersionResource, want, target)));
      expect(copy.status?.reason).toBe('Copied');
      await second.stop();
    }
  }, 900_000);
});
