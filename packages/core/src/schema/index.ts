// Public API of the schema registry: the published V1/V2 JSON Schemas, validation and issue rendering.
// PROTOCOL §10 (48 schema files) as amended by DECISIONS D5, D6, D7, D14, D15, D20, D21.
export { formatSchemaIssues, type SchemaIssue } from './issues.ts';
export { SCHEMA_NAMES, type SchemaVersion } from './names.ts';
export { getSchema, type SchemaVerdict, validateSchema } from './registry.ts';
