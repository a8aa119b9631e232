import { z } from 'zod';

const int32 = () => z.int().min(-2147483648).max(2147483647);

/** apiregistration/v1 APIService beside TypeMeta and ObjectMeta, with kube's field descriptions for OpenAPI. */
export const apiServiceSchema = z.object({
  spec: z
    .object({
      service: z
        .object({
          namespace: z.string().describe('Namespace is the namespace of the service').optional(),
          name: z.string().describe('Name is the name of the service').optional(),
          port: int32()
            .describe(
              'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
            )
            .optional(),
        })
        .nullable()
        .describe(
          'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.',
        )
        .optional(),
      group: z.string().describe('Group is the API group name this server hosts').optional(),
      version: z.string().describe('Version is the API version this server hosts.  For example, "v1"').optional(),
      insecureSkipTLSVerify: z
        .boolean()
        .describe(
          'InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.',
        )
        .optional(),
      caBundle: z
        .string()
        .describe(
          "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.",
        )
        .optional(),
      groupPriorityMinimum: int32()
        .describe(
          'GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones.',
        )
        .optional(),
      versionPriority: int32()
        .describe('VersionPriority controls the ordering of this API version inside of its group. Must be greater than zero.')
        .optional(),
    })
    .describe('Spec contains information for locating and communicating with a server')
    .optional(),
  status: z
    .object({
      conditions: z
        .array(
          z.object({
            type: z.string().describe('Type is the type of the condition.'),
            status: z.string().describe('Status is the status of the condition. Can be True, False, Unknown.'),
            lastTransitionTime: z.string().describe('Last time the condition transitioned from one status to another.').optional(),
            reason: z.string().describe("Unique, one-word, CamelCase reason for the condition's last transition.").optional(),
            message: z.string().describe('Human-readable message indicating details about last transition.').optional(),
          }),
        )
        .describe('Current service state of apiService.')
        .optional(),
    })
    .describe('Status contains derived information about an API server')
    .optional(),
});
