// Command-line parsing for every cardwright command: one table of options per command drives both
// node:util parseArgs and the --help text, so the help can never miss an option.
import { parseArgs } from 'node:util';

/** The command line is wrong: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  /** The command whose --help to point at, when the error belongs to one. */
  command?: string;

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface OptionSpec {
  name: string;
  short?: string;
  /** Placeholder of the value, e.g. "<dir>"; options without one are flags. */
  value?: string;
  description: string;
}

export interface CommandSpec {
  name: string;
  /** e.g. "<file.md | ->" */
  arguments: string;
  summary: string;
  options: OptionSpec[];
  /** Extra paragraphs after the options (environment, examples, exit status). */
  notes?: string;
}

const helpOption: OptionSpec = { name: 'help', short: 'h', description: 'show this help' };

export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` against the command's options; an unknown option or a missing value is a UsageError. */
export function parseCommandLine(command: CommandSpec, args: string[]): ParsedCommandLine {
  const options = Object.fromEntries(
    [...command.options, helpOption].map((option) => [
      option.name,
      { type: option.value ? ('string' as const) : ('boolean' as const), ...(option.short ? { short: option.short } : {}) },
    ]),
  );
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values, positionals };
  } catch (error) {
    // parseArgs' own first sentence ("Unknown option '--foo'", "Option '-o, --out <value>' argument
    // missing") is clear; its advice about positionals starting with "-" is not what went wrong here.
    const sentence = (error as Error).message.split('. To specify')[0]!.trim();
    throw new UsageError(sentence.endsWith('.') ? sentence : `${sentence}.`);
  }
}

/** A number option, or a UsageError naming the option and the text received. */
export function numberOption(name: string, raw: string | boolean | undefined): number | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} needs a number; got "${raw}".`);
  return value;
}

/**
 * A request field's number (--width, --height, --scale): the number when the text is one, else the
 * text itself, which the request check refuses naming the field, as the API and the MCP server do.
 */
export function requestNumberOption(raw: string | boolean | undefined): number | string | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  const value = Number(raw);
  return raw.trim() !== '' && Number.isFinite(value) ? value : raw;
}

export function stringOption(raw: string | boolean | undefined): string | undefined {
  return typeof raw === 'string' ? raw : undefined;
}

/** The --help text of a command. */
export function commandHelp(command: CommandSpec): string {
  const rows = [...command.options, helpOption].map((option) => {
    const flags = `${option.short ? `-${option.short}, ` : '    '}--${option.name}${option.value ? ` ${option.value}` : ''}`;
    return [flags, option.description] as const;
  });
  const width = Math.max(...rows.map(([flags]) => flags.length)) + 2;
  const lines = [
    `Usage: cardwright ${command.name}${command.arguments ? ` ${command.arguments}` : ''} [options]`,
    '',
    command.summary,
    '',
    'Options:',
    ...rows.map(([flags, description]) => `  ${flags.padEnd(width)}${description.replaceAll('\n', `\n  ${' '.repeat(width)}`)}`),
  ];
  if (command.notes) lines.push('', command.notes);
  return `${lines.join('\n')}\n`;
}
