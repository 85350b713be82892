/** The file generate-types.mjs writes. */
export const generatedTypesFile: string;
/** Reads the OpenAPI document at `openapiUrl` and writes its types; returns the file written. */
export function generateTypes(openapiUrl: string): Promise<string>;
