// OperatorGroups (operators.coreos.com/v1) of classic: the controller that keeps a group's status, its member
// CSVs' annotations, its ClusterRoles and provided APIs, and namespaces' group labels; and the group rules the
// CSV controller applies (namespace sets, provided APIs, the intersection decision). See README.md.
export { operatorGroupSetup } from './setup.ts';
export { groupAnnotations, groupAnnotationsDiffer } from './reconciler.ts';
export * from './groups.ts';
