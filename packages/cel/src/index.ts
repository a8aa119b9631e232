export {
  type CelType,
  escapeFieldName,
  type ListType,
  listType,
  type MapType,
  mapType,
  type ObjectType,
  type OptionalType,
  objectType,
  optionalType,
} from './cel-type.ts';
export { COST_LIMIT_EXCEEDED_MESSAGE, PER_CALL_LIMIT } from './cost.ts';
export { CelEnvironment, type CelEnvironmentOptions, type CompileResult } from './environment.ts';
export { CelCompileError, CelEvaluationError, type CelEvaluationErrorReason, type CelIssue } from './errors.ts';
export { AUTHZ_CHECK_COST, type AuthzCheck, type AuthzDecide, type AuthzDecision, CelAuthorizer } from './library/authz.ts';
export { KubeURL } from './library/urls.ts';
export { type EvaluateOptions, type EvaluationResult, PreparedActivation, Program } from './program.ts';
export { Quantity, type QuantityFormat } from './quantity/quantity.ts';
export { compileRE2, type RE2Regexp, RE2SyntaxError } from './regex/re2.ts';
export { CEL_RESERVED_WORDS } from './reserved-words.ts';
