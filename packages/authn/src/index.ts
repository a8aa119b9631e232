export type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
export { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SYSTEM_MASTERS, type UserInfo } from './user-info.ts';
