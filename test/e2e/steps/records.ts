// An extension's objects, read where its runtime keeps them, as upstream's listExtensionResources does:
// - BoxcutterRuntime: the latest Active ClusterObjectSet labelled owner-name=<extension>, every phase object
//   (inline, or resolved from its Secret ref);
// - our standard runtime, in place of upstream's Helm release Secret: the revision records in Secrets of the
//   system namespace (internal/operator-controller/applier/README.md): the newest head that is Active and rolled
//   out (as Helm's `status=deployed` release), its chunks `<head>.<i>` concatenated, gunzipped, a
//   ClusterObjectSet-shaped record whose spec.phases[].objects[].object are the objects.
// Read independently of the product's decoder, from the format the README documents.
import { gunzipSync } from 'node:zlib';
import type { Obj, World } from '../support/world.ts';

interface SecretObj extends Obj {
  data?: Record<string, string>;
}

interface PhaseObject {
  object?: Obj;
  ref?: { name?: string; namespace?: string; key?: string };
}
interface Record_ {
  spec?: { lifecycleState?: string; revision?: number; phases?: { name: string; objects?: PhaseObject[] }[] };
  metadata?: { name?: string };
}

export async function extensionObjects(w: World, extension: string, boxcutter: boolean): Promise<Obj[]> {
  return boxcutter ? objectSetObjects(w, extension) : recordObjects(w, extension);
}

async function recordObjects(w: World, extension: string): Promise<Obj[]> {
  const selector = `olm.operatorframework.io/owner-kind=ClusterExtension,olm.operatorframework.io/owner-name=${extension}`;
  const out = await w.k(['get', 'secrets', '-n', w.profile.olmNamespace, '-l', selector, '-o', 'json']);
  const secrets = (JSON.parse(out) as { items: SecretObj[] }).items;
  const byName = new Map(secrets.map((s) => [s.metadata?.name ?? '', s]));
  const heads = secrets
    .filter((s) => s.metadata?.labels?.['olm.operatorframework.io/revision-chunk'] === undefined)
    .filter((s) => {
      const a = s.metadata?.annotations ?? {};
      return a['olm.operatorframework.io/lifecycle-state'] !== 'Archived' && a['olm.operatorframework.io/succeeded'] === 'True';
    })
    .sort((a, b) => Number(b.metadata?.annotations?.['olm.operatorframework.io/revision']) - Number(a.metadata?.annotations?.['olm.operatorframework.io/revision']));
  const head = heads[0];
  if (!head) throw new Error(`failed to get the revision record of extension ${extension}: no Active, rolled-out revision head among ${[...byName.keys()].join(', ') || 'no Secrets'}`);
  const name = head.metadata?.name ?? '';
  const chunks = Number(head.metadata?.annotations?.['olm.operatorframework.io/revision-chunks'] ?? '1');
  const parts: Buffer[] = [];
  for (let i = 0; i < chunks; i++) {
    const c = byName.get(`${name}.${i}`);
    const data = c?.data?.chunk;
    if (data === undefined) throw new Error(`revision ${name}: chunk ${i} missing`);
    parts.push(Buffer.from(data, 'base64'));
  }
  const record = JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8')) as Record_;
  const objs = (record.spec?.phases ?? []).flatMap((p) => (p.objects ?? []).map((o) => o.object).filter((o): o is Obj => o !== undefined));
  if (objs.length === 0) throw new Error(`revision ${name} lists no objects`);
  return objs;
}

async function objectSetObjects(w: World, extension: string): Promise<Obj[]> {
  const r = await w.kRun(['get', 'clusterobjectsets', '-l', `olm.operatorframework.io/owner-name=${extension}`, '-o', 'json']);
  if (r.code !== 0) throw new Error(`error listing revisions for extension '${extension}': ${r.stderr.trim()}`);
  const items = (JSON.parse(r.stdout) as { items: Record_[] }).items;
  const latest = items
    .filter((i) => i.spec?.lifecycleState === 'Active')
    .sort((a, b) => (b.spec?.revision ?? 0) - (a.spec?.revision ?? 0))[0];
  if (!latest) throw new Error(`no active revisions found for extension '${extension}'`);
  const objs: Obj[] = [];
  for (const phase of latest.spec?.phases ?? []) {
    for (const [j, po] of (phase.objects ?? []).entries()) {
      if (po.ref?.name) {
        const { name, namespace = '', key = '' } = po.ref;
        const s = JSON.parse(await w.k(['get', 'secret', name, '-n', namespace, '-o', 'json'])) as SecretObj;
        const data = s.data?.[key];
        if (data === undefined) throw new Error(`key ${JSON.stringify(key)} not found in Secret ${namespace}/${name}`);
        let bytes = Buffer.from(data, 'base64');
        if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: 10 << 20 });
        objs.push(JSON.parse(bytes.toString('utf8')) as Obj);
      } else if (po.object && Object.keys(po.object).length > 0) objs.push(po.object);
      else throw new Error(`object ${j} in phase ${JSON.stringify(phase.name)} has neither object nor ref`);
    }
  }
  return objs;
}
