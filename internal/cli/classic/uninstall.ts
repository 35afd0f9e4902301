// `kubectl olm uninstall --classic <subscription> -n <namespace>`: the Subscription, the operands with
// `--delete-operands`, the CSV, and with `--delete-operator-groups` the OperatorGroup. The CRDs stay, released from
// the Operator `<package>.<namespace>` (its component label removed once the CSV is gone), so the Operator API drops
// the operator as `list --classic` does.
import type { ClusterServiceVersion, OperatorGroup, Subscription } from '../../../api/operators/index.ts';
import { componentLabelKey, packageOperatorName } from '../../classic/operator/index.ts';
import { isNotFound, type KubeClient, type ObjectRef } from '../../shared/kube/index.ts';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, WAIT_OPTIONS, names, parseFlags, timeoutMs, withClient } from '../cluster.ts';
import { failure, type CliCommand, type CliIO } from '../types.ts';
import { waitFor } from '../wait.ts';
import { SUB, CSV, OG, DEFAULT_TIMEOUT, getOrUndefined, getCSV, findSubscription, CLASSIC_FLAG, NS_OPTION, NS_USAGE } from './common.ts';
import { csvNameOf, watchedNamespaces, ownedKinds } from './logic.ts';

/** The custom resources of the CSV's owned CRDs in the namespaces the operator watches (all, when cluster-scoped). */
async function operandsOf(client: KubeClient, csv: ClusterServiceVersion, io: CliIO): Promise<ObjectRef[]> {
  const watched = watchedNamespaces(csv);
  const out: ObjectRef[] = [];
  for (const k of ownedKinds(csv)) {
    const mapping = await client.mapping(k.apiVersion, k.kind).catch(() => undefined);
    if (!mapping) continue; // the CRD is gone or not served: no operands of it
    const scopes = mapping.namespaced && watched ? watched : [undefined];
    for (const namespace of scopes) {
      const list = await client.listAll({ apiVersion: k.apiVersion, kind: k.kind, ...(namespace && { namespace }) }).catch((err: Error) => {
        io.stderr.write(`list ${k.kind} (${k.crd}): ${err.message}\n`);
      });
      for (const o of list?.items ?? []) out.push({ apiVersion: k.apiVersion, kind: k.kind, name: o.metadata?.name ?? '', ...(o.metadata?.namespace && { namespace: o.metadata.namespace }) });
    }
  }
  return out;
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/**
 * The CSV's owned CRDs stay in place, but are no longer components of the Operator `<package>.<namespace>`: once the
 * CSV is gone (OLM's cleanup finalizer first; before that OLM would label them again), its component label is
 * removed from them, so the Operator API drops the operator once OLM's garbage is collected. False when the CSV was
 * not gone in time (the labels stay; said on stderr).
 */
async function releaseCRDs(client: KubeClient, io: CliIO, csv: ClusterServiceVersion, operator: string, timeout: number): Promise<boolean> {
  const label = componentLabelKey(operator);
  const crds = [];
  for (const d of csv.spec.customresourcedefinitions?.owned ?? []) {
    const crd = await getOrUndefined(client, { ...CRD, name: d.name });
    if (crd?.metadata?.labels?.[label] !== undefined) crds.push(d.name);
  }
  if (crds.length === 0) return true;
  const csvRef = { ...CSV, name: csv.metadata.name ?? '', namespace: csv.metadata.namespace ?? '' };
  const gone = await waitFor({ get: () => getOrUndefined(client, csvRef), done: (o) => o === undefined, timeoutMs: timeout, io, label: `clusterserviceversion/${csvRef.name}` });
  if (!gone.ok) {
    io.stderr.write(`operator "${operator}" still lists crds ${crds.map((c) => `"${c}"`).join(', ')}: clusterserviceversion "${csvRef.name}" was not gone in time (run uninstall again)\n`);
    return false;
  }
  for (const name of crds) {
    try {
      await client.patch({ ...CRD, name }, 'merge', { metadata: { labels: { [label]: null } } });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`release crd "${name}" from operator "${operator}": ${(err as Error).message}`, { cause: err });
    }
  }
  return true;
}

const operandText = (o: ObjectRef): string => `${o.kind.toLowerCase()} "${o.namespace ? `${o.namespace}/` : ''}${o.name}"`;

/** Deletes an object and says so; a missing one is fine. */
async function deleteObject(client: KubeClient, io: CliIO, ref: ObjectRef, text: string): Promise<boolean> {
  try {
    await client.delete(ref);
    io.stdout.write(`${text} deleted\n`);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw new Error(`delete ${text}: ${(err as Error).message}`, { cause: err });
  }
}

async function waitGone(client: KubeClient, io: CliIO, refs: readonly ObjectRef[], timeout: number, label: string): Promise<boolean> {
  const r = await waitFor<number>({
    get: async () => (await Promise.all(refs.map((ref) => getOrUndefined(client, ref)))).filter((o) => o !== undefined).length,
    done: (left) => left === 0,
    timeoutMs: timeout,
    io,
    label,
  });
  return r.ok;
}

export const uninstallClassicCommand: CliCommand = {
  path: ['uninstall'],
  summary: 'delete an extension and everything it installed',
  usage: [
    'Usage: kubectl olm uninstall --classic <subscription>... -n <namespace> [--delete-operands] [--wait] [flags]',
    '',
    'OLM classic: deletes the Subscription and the CSV it installed (status.installedCSV, else currentCSV); OLM\'s',
    'owner references and labels then remove the operator\'s Deployments, RBAC and Services. The custom resources of',
    'the CSV\'s owned CRDs (the operands) are left in place unless --delete-operands, which deletes them first — in',
    'the namespaces the operator watches — and waits until they are gone, so the operator can handle their',
    'finalizers. CRDs are never deleted: once the CSV is gone (waited for, up to --timeout), they stop being components',
    'of the Operator <package>.<namespace>, so `kubectl get operators` drops it as `list --classic` does.',
    '<subscription> may also name the package.',
    '',
    'Flags:',
    NS_USAGE,
    '      --delete-operands              delete the operator\'s custom resources first',
    '      --delete-operator-groups       delete the namespace\'s OperatorGroups when no Subscription is left in it',
    '      --wait                         wait until the Subscription and the CSV are gone',
    `      --timeout <duration>           how long waits take at most (Go duration, default ${DEFAULT_TIMEOUT}; 0: no limit)`,
    ...CONNECTION_USAGE,
    '',
    'Examples:',
    '  kubectl olm uninstall --classic etcd -n operators --wait',
    '  kubectl olm uninstall --classic etcd -n operators --delete-operands --delete-operator-groups',
  ].join('\n'),
  async run(args, io) {
    const { values, positionals: pos } = parseFlags(args, {
      ...CONNECTION_OPTIONS,
      ...CLASSIC_FLAG,
      ...NS_OPTION,
      'delete-operands': { type: 'boolean' },
      'delete-operator-groups': { type: 'boolean' },
      ...WAIT_OPTIONS,
    });
    const targets = names(pos, 'subscription');
    const timeout = timeoutMs(values.timeout, DEFAULT_TIMEOUT);
    return withClient(values, io, async (client) => {
      const ns = values.namespace ?? client.defaultNamespace;
      // Several names, as kubectl delete takes them: each in turn, exit 1 when any failed.
      let code = 0;
      for (const target of targets) code = Math.max(code, await uninstallOne(client, ns, target));
      return code;
    });

    async function uninstallOne(client: KubeClient, ns: string, target: string): Promise<number> {
      const fail = failure(io, 'uninstall operator');
      const sub = await findSubscription(client, ns, target);
      if (!sub) return fail(`package "${target}" not found`);
      const name = sub.metadata.name ?? '';
      const csvName = csvNameOf(sub);
      const csv = csvName ? await getCSV(client, ns, csvName) : undefined;
      const operands = csv ? await operandsOf(client, csv, io) : [];
      // The Subscription first, so nothing installs or upgrades while the rest goes (kubectl-operator's order).
      const gone: ObjectRef[] = [{ ...SUB, name, namespace: ns }];
      await deleteObject(client, io, gone[0]!, `subscription "${name}"`);
      if (values['delete-operands']) {
        for (const o of operands) await deleteObject(client, io, o, operandText(o));
        if (operands.length > 0 && !(await waitGone(client, io, operands, timeout, 'operands'))) {
          return fail(`delete operand: wait for operands deleted: context deadline exceeded (left: ${operands.map(operandText).join(', ')})`);
        }
      } else if (operands.length > 0) {
        io.stderr.write(`${operands.length} operand${operands.length > 1 ? 's' : ''} left in place: ${operands.map(operandText).join(', ')} (--delete-operands deletes them)\n`);
      }
      if (csv) {
        const ref = { ...CSV, name: csvName, namespace: ns };
        if (await deleteObject(client, io, ref, `clusterserviceversion "${csvName}"`)) gone.push(ref);
        await releaseCRDs(client, io, csv, packageOperatorName(sub.spec.name, ns), timeout);
      } else io.stderr.write(`csv for package "${sub.spec.name}" not found\n`);
      if (values['delete-operator-groups']) {
        const left = (await client.listAll<Subscription>({ ...SUB, namespace: ns })).items.filter((s) => s.metadata.name !== name);
        if (left.length === 0) {
          for (const og of (await client.listAll<OperatorGroup>({ ...OG, namespace: ns })).items) {
            const ref = { ...OG, name: og.metadata.name ?? '', namespace: ns };
            if (await deleteObject(client, io, ref, `operatorgroup "${og.metadata.name ?? ''}"`)) gone.push(ref);
          }
        }
      }
      if (values.wait && !(await waitGone(client, io, gone, timeout, `subscription/${name}`))) return fail('wait for deletion: context deadline exceeded');
      return 0;
    }
  },
};
