// A parsed option's value as a command reads it: a text option as a string, a repeatable one as a list. One reader
// for every command (P224: log, receipt, attestation, revocation and the evidence options each kept their own).
type Values = Readonly<Record<string, unknown>>;

/** The option's text, or undefined when it was not given (or is a switch). */
export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable option's texts: one given once is a list of one, none an empty list. */
export function listOption(values: Values, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}
