/** parseArgs string options, as the flag files declare them. */
type StringOptions = Record<string, { readonly type: 'string'; readonly multiple?: boolean }>;

/** The values node:util parseArgs gives for `flags` (derived, so a flag is declared once). */
export type FlagValues<F extends StringOptions> = {
  [K in keyof F]?: (F[K] extends { readonly multiple: true } ? readonly string[] : string) | undefined;
};
