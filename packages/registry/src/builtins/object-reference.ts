import { z } from 'zod';
import { atomicMap } from '../kube-extensions.ts';

/**
 * core/v1 ObjectReference (an Event's involvedObject and related, a ServiceAccount's secrets): `+structType=atomic` in
 * kube, so apply and patches replace it whole.
 */
export const objectReferenceSchema = atomicMap(
  z.object({
    kind: z.string().optional(),
    namespace: z.string().optional(),
    name: z.string().optional(),
    uid: z.string().optional(),
    apiVersion: z.string().optional(),
    resourceVersion: z.string().optional(),
    fieldPath: z.string().optional(),
  }),
);
