/** parseArgs options, as the flag files declare them. */
type Options = Record<string, { readonly type: 'string' | 'boolean'; readonly multiple?: boolean }>;

/** The values node:util parseArgs gives for `flags` (derived, so a flag is declared once). */
export type FlagValues<F extends Options> = {
  [K in keyof F]?:
    | (F[K] extends { readonly type: 'boolean' } ? boolean : F[K] extends { readonly multiple: true } ? readonly string[] : string)
    | undefined;
};
