/**
 * kube's admission plugin names (k8s.io/kubernetes/pkg/kubeapiserver/options/plugins.go) and its recommended order,
 * AllOrderedPlugins: the order a chain runs its plugins in whatever order they were enabled. Mutating plugins all run
 * before validating ones, so only the order within each phase matters.
 */
export const ALL_ORDERED_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PodGroupProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'PodGroupWorkloadExists',
  'NodeDeclaredFeatureValidator',
  'JobValidation',
  'PodResizeValidator',
  // kube: "new admission plugins should generally be inserted above here; webhook, resourcequota, and deny plugins
  // must go at the end" — plugins registered under other names go here too (see AdmissionPluginRegistry).
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** The first of the plugins kube keeps at the end of the order; plugins of other names go before it. */
export const FIRST_OF_THE_END_PLUGINS = 'MutatingAdmissionPolicy';

/**
 * kube-apiserver's plugins on by default (the complement of DefaultOffAdmissionPlugins) among those that make sense
 * without Pods, Nodes and the other core kinds: what a chain enables with no `--enable-admission-plugins`.
 */
export const DEFAULT_ON_PLUGINS: readonly string[] = [
  'NamespaceLifecycle',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];
