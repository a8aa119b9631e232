import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answerConversionReview } from './conversion-review.ts';
import { defineResource } from './define-resource.ts';

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> };
const rename = (from: string, to: string) => (o: unknown) => {
  const obj = o as Obj;
  const { [from]: value, ...rest } = obj.spec;
  return { ...obj, spec: { ...rest, [to]: value } } as never;
};
const Paint = defineResource({
  group: 'example.kapi.dev',
  kind: 'Paint',
  plural: 'paints',
  namespaced: true,
  versions: [
    {
      name: 'v1',
      schema: z.object({ spec: z.object({ colour: z.string() }) }),
      toHub: rename('colour', 'color'),
      fromHub: rename('color', 'colour'),
    },
    { name: 'v2', storage: true, schema: z.object({ spec: z.object({ color: z.string() }) }) },
  ],
});
const v1 = { apiVersion: 'example.kapi.dev/v1', kind: 'Paint', metadata: { name: 'a' }, spec: { colour: 'red' } };
const v2 = { apiVersion: 'example.kapi.dev/v2', kind: 'Paint', metadata: { name: 'a' }, spec: { color: 'red' } };
const review = (desiredAPIVersion: string, objects: unknown, apiVersion = 'apiextensions.k8s.io/v1') => ({
  apiVersion,
  kind: 'ConversionReview',
  request: { uid: 'u-1', desiredAPIVersion, objects },
});

describe('answerConversionReview', () => {
  it("converts a ConversionReview's objects with the kind's TypeScript converters, both ways", () => {
    expect(answerConversionReview(Paint, review('example.kapi.dev/v2', [v1]))).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: 'u-1', convertedObjects: [v2], result: { status: 'Success' } },
    });
    expect(answerConversionReview(Paint, review('example.kapi.dev/v1', [v2, v1], 'apiextensions.k8s.io/v1beta1'))).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      kind: 'ConversionReview',
      response: { uid: 'u-1', convertedObjects: [v1, v1], result: { status: 'Success' } },
    });
  });

  it.each([
    ['not a review', { kind: 'Pod' }, 'expected a ConversionReview with a request'],
    ['another group', review('other.io/v1', [v1]), 'paints.example.kapi.dev has no version "other.io/v1"'],
    ['an unknown version', review('example.kapi.dev/v3', [v1]), 'paints.example.kapi.dev has no version "example.kapi.dev/v3"'],
    ['a malformed version', review('a/b/c', [v1]), 'paints.example.kapi.dev has no version "a/b/c"'],
    ['objects that are not a list', review('example.kapi.dev/v2', {}), 'request.objects must be a list'],
    [
      'an object of an unknown version',
      review('example.kapi.dev/v2', [{ ...v1, apiVersion: 'example.kapi.dev/v9' }]),
      'no kind "Paint" is registered for version "example.kapi.dev/v9"',
    ],
  ])('answers %s with a Failure result saying why', (_what, body, message) => {
    expect(answerConversionReview(Paint, body)).toMatchObject({
      kind: 'ConversionReview',
      response: { result: { status: 'Failure', message } },
    });
  });
});
