// How request bodies are validated, by Fastify's route schemas and by checkGenerateBody alike.

/** Types are checked, not coerced: "440" is not a number and "true" is not a boolean. */
export const requestValidationOptions = { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false } as const;
