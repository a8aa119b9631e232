import { z } from 'zod';

/** core/v1 ObjectReference (an Event's involvedObject and related, a ServiceAccount's secrets). */
export const objectReferenceSchema = z.object({
  kind: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  apiVersion: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});
