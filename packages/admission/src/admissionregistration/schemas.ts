import { atomicList, atomicMap, listMap, listSet } from '@kapi/registry';
import { z } from 'zod';

/**
 * zod schemas of admissionregistration.k8s.io/v1 with kube's list and map types (for patches and server-side apply).
 * Enumerations are plain strings here: kube refuses a bad value in validation, in its own words ("Unsupported value").
 */

const strings = () => atomicList(z.array(z.string()));

/**
 * metav1.LabelSelector as kube decodes it: the operator is any string (as in kube's OpenAPI), so that validation
 * refuses a bad one once, in kube's words ("not a valid selector operator").
 */
const labelSelectorSchema = atomicMap(
  z.object({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: atomicList(
      z.array(
        z.object({
          key: z.string(),
          operator: z.string(),
          values: atomicList(z.array(z.string())).optional(),
        }),
      ),
    ).optional(),
  }),
);
const int32 = () => z.int().min(-2147483648).max(2147483647);

export const ruleWithOperationsShape = {
  operations: strings()
    .describe(
      "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added. If '*' is present, the length of the slice must be one. Required.",
    )
    .optional(),
  apiGroups: strings()
    .describe(
      "APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is present, the length of the slice must be one. Required.",
    )
    .optional(),
  apiVersions: strings()
    .describe(
      "APIVersions is the API versions the resources belong to. '*' is all versions. If '*' is present, the length of the slice must be one. Required.",
    )
    .optional(),
  resources: strings()
    .describe(
      "Resources is a list of resources this rule applies to. For example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.",
    )
    .optional(),
  scope: z
    .string()
    .describe('scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*". Default is "*".')
    .optional(),
};

export const ruleWithOperationsSchema = z.object(ruleWithOperationsShape);

export const namedRuleWithOperationsSchema = atomicMap(
  z.object({
    resourceNames: strings()
      .describe(
        'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.',
      )
      .optional(),
    ...ruleWithOperationsShape,
  }),
);

const matchConditionSchema = z.object({
  name: z.string().describe('Name is an identifier for this match condition. Required.'),
  expression: z.string().describe('Expression represents the expression which will be evaluated by CEL. Must evaluate to bool. Required.'),
});

/** matchConditions: a map list keyed by name, as in kube. */
export const matchConditionsSchema = listMap(z.array(matchConditionSchema), ['name']);

const webhookClientConfigSchema = z.object({
  url: z.string().describe('`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`).').optional(),
  service: z
    .object({
      namespace: z.string().describe('`namespace` is the namespace of the service. Required'),
      name: z.string().describe('`name` is the name of the service. Required'),
      path: z.string().describe('`path` is an optional URL path which will be sent in any request to this service.').optional(),
      port: int32()
        .describe('If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility.')
        .optional(),
    })
    .describe('`service` is a reference to the service for this webhook. Either `service` or `url` must be specified.')
    .optional(),
  caBundle: z
    .string()
    .describe("`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate.")
    .optional(),
});

const webhookShape = {
  name: z
    .string()
    .describe('The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io. Required.'),
  clientConfig: webhookClientConfigSchema.describe('ClientConfig defines how to communicate with the hook. Required'),
  rules: atomicList(z.array(ruleWithOperationsSchema))
    .describe('Rules describes what operations on what resources/subresources the webhook cares about.')
    .optional(),
  failurePolicy: z
    .string()
    .describe(
      'FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.',
    )
    .optional(),
  matchPolicy: z
    .string()
    .describe(
      'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Defaults to "Equivalent"',
    )
    .optional(),
  namespaceSelector: labelSelectorSchema
    .describe(
      'NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector.',
    )
    .optional(),
  objectSelector: labelSelectorSchema
    .describe('ObjectSelector decides whether to run the webhook based on if the object has matching labels.')
    .optional(),
  sideEffects: z
    .string()
    .describe('SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun.')
    .optional(),
  timeoutSeconds: int32()
    .describe(
      'TimeoutSeconds specifies the timeout for this webhook. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.',
    )
    .optional(),
  admissionReviewVersions: strings()
    .describe('AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects.')
    .optional(),
  matchConditions: matchConditionsSchema
    .describe('MatchConditions is a list of conditions that must be met for a request to be sent to this webhook.')
    .optional(),
};

export const validatingWebhookConfigurationSchema = z.object({
  webhooks: listMap(z.array(z.object(webhookShape)), ['name'])
    .describe('Webhooks is a list of webhooks and the affected resources and operations.')
    .optional(),
});

export const mutatingWebhookConfigurationSchema = z.object({
  webhooks: listMap(
    z.array(
      z.object({
        ...webhookShape,
        reinvocationPolicy: z
          .string()
          .describe(
            'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation. Allowed values are "Never" and "IfNeeded".',
          )
          .optional(),
      }),
    ),
    ['name'],
  )
    .describe('Webhooks is a list of webhooks and the affected resources and operations.')
    .optional(),
});

/** MatchResources is `+structType=atomic` in kube. */
export const matchResourcesSchema = atomicMap(
  z.object({
    namespaceSelector: labelSelectorSchema
      .describe(
        'NamespaceSelector decides whether to run the admission control policy on an object based on whether the namespace for that object matches the selector.',
      )
      .optional(),
    objectSelector: labelSelectorSchema
      .describe('ObjectSelector decides whether to run the validation based on if the object has matching labels.')
      .optional(),
    resourceRules: atomicList(z.array(namedRuleWithOperationsSchema))
      .describe('ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy matches.')
      .optional(),
    excludeResourceRules: atomicList(z.array(namedRuleWithOperationsSchema))
      .describe(
        'ExcludeResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy should not care about.',
      )
      .optional(),
    matchPolicy: z
      .string()
      .describe(
        'matchPolicy defines how the "MatchResources" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Defaults to "Equivalent"',
      )
      .optional(),
  }),
);

const conditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  observedGeneration: z.int().min(0).optional(),
  lastTransitionTime: z.string(),
  reason: z.string(),
  message: z.string(),
});

export const validatingAdmissionPolicySchema = z.object({
  spec: z
    .object({
      paramKind: atomicMap(
        z.object({
          apiVersion: z.string().describe('APIVersion is the API group version the resources belong to.').optional(),
          kind: z.string().describe('Kind is the API kind the resources belong to. Required.').optional(),
        }),
      )
        .describe('ParamKind specifies the kind of resources used to parameterize this policy.')
        .optional(),
      matchConstraints: matchResourcesSchema
        .describe('MatchConstraints specifies what resources this policy is designed to validate. Required.')
        .optional(),
      validations: atomicList(
        z.array(
          z.object({
            expression: z.string().describe('Expression represents the expression which will be evaluated by CEL. Required.'),
            message: z.string().describe('Message represents the message displayed when validation fails.').optional(),
            reason: z.string().describe('Reason represents a machine-readable description of why this validation failed.').optional(),
            messageExpression: z
              .string()
              .describe(
                'messageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails.',
              )
              .optional(),
          }),
        ),
      )
        .describe('Validations contain CEL expressions which is used to apply the validation.')
        .optional(),
      failurePolicy: z
        .string()
        .describe(
          'failurePolicy defines how to handle failures for the admission policy. Allowed values are Ignore or Fail. Defaults to Fail.',
        )
        .optional(),
      auditAnnotations: atomicList(
        z.array(
          z.object({
            key: z.string().describe('key specifies the audit annotation key. Required.'),
            valueExpression: z
              .string()
              .describe(
                'valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value. Required.',
              ),
          }),
        ),
      )
        .describe(
          'auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event of the API request.',
        )
        .optional(),
      matchConditions: matchConditionsSchema
        .describe('MatchConditions is a list of conditions that must be met for a request to be validated.')
        .optional(),
      variables: atomicList(
        z.array(
          z.object({
            name: z.string().describe('Name is the name of the variable. Required.'),
            expression: z.string().describe('Expression is the expression that will be evaluated as the value of the variable. Required.'),
          }),
        ),
      )
        .describe('Variables contain definitions of variables that can be used in composition of other expressions.')
        .optional(),
    })
    .describe('Specification of the desired behavior of the ValidatingAdmissionPolicy.')
    .optional(),
  status: z
    .object({
      observedGeneration: z.int().describe('The generation observed by the controller.').optional(),
      typeChecking: z
        .object({
          expressionWarnings: atomicList(z.array(z.object({ fieldRef: z.string(), warning: z.string() })))
            .describe('The type checking warnings for each expression.')
            .optional(),
        })
        .describe('The results of type checking for each expression. Presence of this field indicates the completion of the type checking.')
        .optional(),
      conditions: listMap(z.array(conditionSchema), ['type'])
        .describe("The conditions represent the latest available observations of a policy's current state.")
        .optional(),
    })
    .describe(
      'The status of the ValidatingAdmissionPolicy, including warnings that are useful to determine if the policy behaves in the expected way.',
    )
    .optional(),
});

export const validatingAdmissionPolicyBindingSchema = z.object({
  spec: z
    .object({
      policyName: z
        .string()
        .describe('PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to. Required.')
        .optional(),
      paramRef: atomicMap(
        z.object({
          name: z.string().describe('name is the name of the resource being referenced.').optional(),
          namespace: z.string().describe('namespace is the namespace of the referenced resource.').optional(),
          selector: labelSelectorSchema.describe('selector can be used to match multiple param objects based on their labels.').optional(),
          parameterNotFoundAction: z
            .string()
            .describe(
              '`parameterNotFoundAction` controls the behavior of the binding when the resource exists, and name or selector is valid, but there are no parameters matched by the binding. Allowed values are `Allow` or `Deny`. Required',
            )
            .optional(),
        }),
      )
        .describe('paramRef specifies the parameter resource used to configure the admission control policy.')
        .optional(),
      matchResources: matchResourcesSchema
        .describe('MatchResources declares what resources match this binding and will be validated by it.')
        .optional(),
      validationActions: listSet(z.array(z.string()))
        .describe('validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced. Required.')
        .optional(),
    })
    .describe('Specification of the desired behavior of the ValidatingAdmissionPolicyBinding.')
    .optional(),
});
