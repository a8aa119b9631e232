import { readFileSync } from 'node:fs';

/** The example's CRD manifests (Machine, Part), as YAML text for startTestServer's `crds`. */
export const CRDS: string[] = ['machines.yaml', 'parts.yaml'].map((f) => readFileSync(new URL(`../../crds/${f}`, import.meta.url), 'utf8'));
