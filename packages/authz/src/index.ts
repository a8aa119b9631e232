export type { AuthorizationAttributes, AuthorizationResult, Authorizer, Decision } from './authorizer.ts';
