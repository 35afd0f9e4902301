// Shapes several classic kinds share.

/** core/v1 ObjectReference (every field optional, as Kubernetes has it). */
export interface ObjectReference {
  apiVersion?: string;
  fieldPath?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
}

/** An embedded Kubernetes type kept as data (DeploymentSpec, Affinity, Volume, …): its shape is Kubernetes' own. */
export type KubeValue = Record<string, unknown>;

export interface Icon {
  base64data: string;
  mediatype: string;
}
