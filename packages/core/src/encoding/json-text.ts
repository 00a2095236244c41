// JSON text that shows on a terminal as what it is (P596, P597). JSON.stringify (and pino, which writes strings the
// same way) escapes only U+0000–U+001F, so DEL, the C1 controls (U+009B is CSI, ESC [ in one character), format
// characters (bidi overrides, zero-width ones, U+FEFF) and the line and paragraph separators went out raw: a name
// printed by `proto` or written to a service's log moved the cursor, cleared the screen or reversed the line.

/**
 * The characters written as escapes. They occur in JSON text only inside strings, where `\uXXXX` is the same value;
 * the C0 controls are left alone (escaped inside strings already, outside only the indentation's line feeds).
 */
const TERMINAL_HIDDEN = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

function escaped(character: string): string {
  let text = '';
  for (let i = 0; i < character.length; i++)
    text += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return text;
}

/** `json` (JSON text) with every terminal-hidden character of its strings escaped: it parses to the same value. */
export function jsonWithHiddenEscaped(json: string): string {
  return json.replace(TERMINAL_HIDDEN, escaped);
}
