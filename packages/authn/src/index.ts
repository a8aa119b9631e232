export { aggregateErrors, aggregateMessage } from './aggregate-error.ts';
export { AnonymousAuthenticator } from './anonymous.ts';
export { withAuthenticatedGroup } from './authenticated-group.ts';
export type { AuthenticationRequest, AuthenticationResult, Authenticator } from './authenticator.ts';
export { BearerTokenAuthenticator, bearerTokenOf, INVALID_BEARER_TOKEN, type TokenAuthenticator } from './bearer-token.ts';
export { CsvParseError } from './csv.ts';
export { TokenFileAuthenticator, TokenFileError } from './token-file.ts';
export { unionAuthenticator } from './union.ts';
export { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, SYSTEM_MASTERS, type UserInfo } from './user-info.ts';
