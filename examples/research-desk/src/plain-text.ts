/**
 * Text from a corpus file or a model, made safe to print on a terminal: escape sequences (CSI such as a
 * screen clear, OSC such as a title change or an OSC 52 clipboard write, DCS/SOS/PM/APC strings, and the
 * other ESC sequences) are removed whole, and every other control character but newline and tab (C0,
 * DEL, C1 including the 8-bit CSI and OSC) is dropped. A sequence split across two chunks of a stream
 * cannot get through either: its ESC is dropped in the first, and the rest prints as plain text.
 */

// Each pattern is linear: an unterminated string runs to the end of the text once, not once per ESC.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const STRING_SEQUENCE = /\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const OTHER_ESCAPE = /\u001b[ -/]*[0-~]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** `text` without terminal control sequences or control characters (newlines and tabs stay). */
export function plainText(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(STRING_SEQUENCE, '')
    .replace(CSI, '')
    .replace(OTHER_ESCAPE, '')
    .replace(CONTROL, '')
}
