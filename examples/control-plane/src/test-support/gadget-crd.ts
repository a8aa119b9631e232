/**
 * Dev-only (excluded from the build): a CRD whose spec has one list of each kind server-side apply distinguishes —
 * `ports` a map list keyed by name, `tags` a set, `args` atomic — plus a granular map, an atomic struct and a status
 * subresource with conditions keyed by type, for the apply end-to-end suites; replicas through a scale subresource.
 */
export const GADGET_GROUP = 'apply.example.com';
export const GADGET_CRD_NAME = `gadgets.${GADGET_GROUP}`;

export const GADGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${GADGET_CRD_NAME}
spec:
  group: ${GADGET_GROUP}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              args:
                type: array
                x-kubernetes-list-type: atomic
                items: {type: string}
              labels:
                type: object
                additionalProperties: {type: string}
              selector:
                type: object
                x-kubernetes-map-type: atomic
                properties:
                  app: {type: string}
                  tier: {type: string}
          status:
            type: object
            properties:
              replicas: {type: integer}
              observedGeneration: {type: integer}
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type]
                  properties:
                    type: {type: string}
                    status: {type: string}
`;

/** A Gadget manifest (JSON is YAML) in namespace default. */
export function gadget(name: string, spec: Record<string, unknown>): string {
  return `${JSON.stringify({ apiVersion: `${GADGET_GROUP}/v1`, kind: 'Gadget', metadata: { name, namespace: 'default' }, spec }, null, 2)}\n`;
}
