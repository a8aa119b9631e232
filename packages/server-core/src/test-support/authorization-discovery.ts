/** The resources /apis/authorization.k8s.io/v1 lists when the auth reviews are served, as kube lists them. */
export const AUTHORIZATION_V1_RESOURCES = [
  {
    name: 'localsubjectaccessreviews',
    singularName: 'localsubjectaccessreview',
    namespaced: true,
    kind: 'LocalSubjectAccessReview',
    verbs: ['create'],
  },
  {
    name: 'selfsubjectaccessreviews',
    singularName: 'selfsubjectaccessreview',
    namespaced: false,
    kind: 'SelfSubjectAccessReview',
    verbs: ['create'],
  },
  {
    name: 'selfsubjectrulesreviews',
    singularName: 'selfsubjectrulesreview',
    namespaced: false,
    kind: 'SelfSubjectRulesReview',
    verbs: ['create'],
  },
  {
    name: 'subjectaccessreviews',
    singularName: 'subjectaccessreview',
    namespaced: false,
    kind: 'SubjectAccessReview',
    verbs: ['create'],
  },
];
