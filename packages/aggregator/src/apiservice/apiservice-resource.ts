import { isValidPathSegmentName, type KubeObject } from '@kapi/apimachinery';
import { AGE_COLUMN, checkConditionTimes, defaultStrategy, defineResource, type ResourceDefinition } from '@kapi/registry';
import { apiServiceSchema } from './schema.ts';
import {
  APIREGISTRATION_GROUP,
  type APIService,
  type APIServiceCondition,
  AVAILABLE_CONDITION,
  LOCAL_AVAILABLE_MESSAGE,
  LOCAL_AVAILABLE_REASON,
} from './types.ts';
import { availableCondition, validateAPIService, validateAPIServiceStatus } from './validation.ts';

/** SetDefaults_ServiceReference: a Service's port is 443 unless given (kube defaults it when decoding). */
function setDefaults(obj: APIService): void {
  const service = obj.spec?.service;
  if (service && typeof service === 'object' && service.port === undefined) service.port = 443;
}

/** NewLocalAvailableAPIServiceCondition, stamped now. */
export function localAvailableCondition(nowMs: number): APIServiceCondition {
  return {
    type: AVAILABLE_CONDITION,
    status: 'True',
    lastTransitionTime: new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    reason: LOCAL_AVAILABLE_REASON,
    message: LOCAL_AVAILABLE_MESSAGE,
  };
}

/** The SERVICE cell of `kubectl get apiservices`: namespace/name, or Local. */
function serviceCell(o: KubeObject): string {
  const service = (o as APIService).spec?.service;
  return service ? `${service.namespace ?? ''}/${service.name ?? ''}` : 'Local';
}

/** The AVAILABLE cell: True, or the status with its reason (`False (MissingEndpoints)`), Unknown without the condition. */
function availableCell(o: KubeObject): string {
  const c = availableCondition(o as APIService);
  if (!c) return 'Unknown';
  if (c.status === 'True' || !c.reason) return c.status;
  return `${c.status} (${c.reason})`;
}

/**
 * kube-aggregator's APIService registry (pkg/registry/apiservice): cluster-scoped, status through its own
 * subresource, a new object's status cleared and, for a local APIService, marked Available at once (the strategy's
 * PrepareForCreate does so), generation bumped on spec changes, kube's validation and its table.
 */
export function apiServiceResource(): ResourceDefinition<APIService> {
  const base = defaultStrategy<KubeObject>({ namespaced: false, subresources: { status: true }, selectableFields: [] });
  return defineResource({
    group: APIREGISTRATION_GROUP,
    kind: 'APIService',
    plural: 'apiservices',
    namespaced: false,
    categories: ['api-extensions'],
    versions: [{ name: 'v1', schema: apiServiceSchema }],
    subresources: { status: true },
    // kube checks the name is a path segment here, and that it is version.group in ValidateAPIService.
    validateName: (name) => isValidPathSegmentName(name),
    printerColumns: [
      {
        name: 'Service',
        type: 'string',
        jsonPath: '.spec.service',
        description: 'The reference to the service that hosts this API endpoint.',
        value: serviceCell,
      },
      {
        name: 'Available',
        type: 'string',
        jsonPath: '.status.conditions',
        description: 'Whether this service is available.',
        value: availableCell,
      },
      AGE_COLUMN,
    ],
    strategy: {
      prepareForCreate: (ctx, obj) => {
        setDefaults(obj as APIService);
        base.prepareForCreate(ctx, obj);
        const created = obj as APIService;
        created.status = {};
        if (!created.spec?.service) created.status.conditions = [localAvailableCondition(Date.now())];
      },
      prepareForUpdate: (ctx, obj, old) => {
        setDefaults(obj as APIService);
        base.prepareForUpdate(ctx, obj, old);
      },
      validate: (_ctx, obj) => validateAPIService(obj as APIService),
      validateUpdate: (ctx, obj) => {
        if (ctx.subresource !== 'status') return validateAPIService(obj as APIService);
        // kube decodes lastTransitionTime as metav1.Time: another string is a 400, never stored for Go clients to choke on.
        checkConditionTimes('APIService', 'v1', (obj as APIService).status?.conditions);
        return validateAPIServiceStatus((obj as APIService).status);
      },
      warningsOnCreate: () => [],
      warningsOnUpdate: () => [],
      allowCreateOnUpdate: () => false,
      allowUnconditionalUpdate: () => false,
    },
  }) as unknown as ResourceDefinition<APIService>;
}

/** apiregistration.k8s.io/v1 APIService. */
export const APIServiceResource = apiServiceResource();
