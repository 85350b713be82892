// The `cardwright` command: render Markdown to card images without a server, list themes, create
// API keys, and run the service or the MCP server. Exit status: 0 done, 1 failed, 2 invalid
// command line or request.
import { commandHelp, UsageError, type CommandSpec } from './cli/command-line.js';
import { keysCommand, mcpCommand, renderCommand, serveCommand, themesCommand } from './cli/commands.js';
import { failureReport } from './cli/report.js';
import { packageVersion } from './version.js';

type Run = (args: string[]) => void | Promise<void>;

// Each command's code is imported when it runs: `render` loads the browser, `themes` does not.
const commands: { spec: CommandSpec; load: () => Promise<Run> }[] = [
  { spec: renderCommand, load: async () => (await import('./cli/render-command.js')).runRender },
  { spec: themesCommand, load: async () => (await import('./cli/themes-command.js')).runThemes },
  { spec: serveCommand, load: async () => (await import('./cli/serve-command.js')).runServe },
  { spec: keysCommand, load: async () => (await import('./cli/keys-command.js')).runKeys },
  { spec: mcpCommand, load: async () => (await import('./cli/mcp-command.js')).runMcp },
];

function mainHelp(): string {
  const width = Math.max(...commands.map(({ spec }) => `${spec.name} ${spec.arguments}`.length)) + 2;
  return [
    'Usage: cardwright <command> [options]',
    '',
    'Turns Markdown into styled card images.',
    '',
    'Commands:',
    ...commands.map(({ spec }) => `  ${`${spec.name} ${spec.arguments}`.padEnd(width)}${spec.summary}`),
    '',
    'Run `cardwright <command> --help` for the options of a command.',
    'Exit status: 0 done; 1 failed; 2 invalid command line or request.',
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp());
    return;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${packageVersion}\n`);
    return;
  }
  const command = commands.find(({ spec }) => spec.name === name);
  if (!command) throw new UsageError(`"${name}" is not a command. The commands are: ${commands.map(({ spec }) => spec.name).join(', ')}.`);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(commandHelp(command.spec));
    return;
  }
  try {
    await (await command.load())(args);
  } catch (error) {
    if (error instanceof UsageError) error.command = name;
    throw error;
  }
}

/** Prints a failure the way a user can act on it and sets the exit status. */
function report(error: unknown): void {
  const { text, exitCode } = failureReport(error);
  process.stderr.write(text);
  process.exitCode = exitCode;
}

await main(process.argv.slice(2)).catch(report);
