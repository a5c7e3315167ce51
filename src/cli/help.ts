/** `--help` texts, built from the command definitions (docs/cli.md is built from the same). */
import { supportedReleases } from '../releases/index.js';
import { usageLine, type CommandDef, type OptionDef } from './command.js';

/** Options every command takes; the dispatcher handles them. */
export const GLOBAL_OPTIONS: Record<string, OptionDef> = {
  json: {
    type: 'boolean',
    description: 'print one JSON document (see docs/cli.md); errors become a JSON document on stderr',
  },
  ndjson: {
    type: 'boolean',
    description: 'print one JSON object per row, one per line; errors become a JSON document on stderr',
  },
  'max-input-size': {
    type: 'string',
    value: 'SIZE',
    description:
      'the most bytes one input (file or standard input) may have, K/M/G for KiB/MiB/GiB (default 256M, at most 511M); a bigger one is refused (EFBIG) before it is read whole',
  },
  help: { type: 'boolean', short: 'h', description: 'show this help and exit' },
};

/** What each exit code means, for every command. */
export const EXIT_CODES: { code: number; meaning: string }[] = [
  { code: 0, meaning: 'success' },
  {
    code: 1,
    meaning:
      'a finding: the kubelet would restart a container, no release matches, or a plan has will-restart/unknown entries',
  },
  {
    code: 2,
    meaning: 'bad input, a usage error, or a refusal (the tool will not give a verdict on what it was given)',
  },
];

export function optionSpelling(name: string, o: OptionDef): string {
  return `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
}

function wrap(text: string, indent: string, width = 100): string {
  const out: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      if (line && indent.length + line.length + 1 + word.length > width) {
        out.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(indent + line);
  }
  return out.join('\n');
}

export function commandHelp(cmd: CommandDef): string {
  const opts = { ...cmd.options, ...GLOBAL_OPTIONS };
  const spelled = Object.entries(opts).map(([n, o]) => [optionSpelling(n, o), o] as const);
  const width = Math.max(...spelled.map(([s]) => s.length), ...cmd.operands.map((o) => o.name.length));
  const lines = [
    `usage: ${usageLine(cmd)}`,
    '',
    wrap(cmd.description, ''),
    '',
    'operands:',
    ...cmd.operands.map((o) => `  ${o.name.padEnd(width)}  ${o.description}`),
    '',
    'options:',
    ...spelled.map(([s, o]) => `  ${s.padEnd(width)}  ${o.description}${o.multiple ? ' (repeatable)' : ''}`),
    '',
    'exit codes:',
    ...EXIT_CODES.map(
      (e) =>
        `  ${e.code}  ${e.code === 1 && cmd.finding ? cmd.finding : e.code === 1 ? 'not returned by this command' : e.meaning}`,
    ),
    '',
    'examples:',
    ...cmd.examples.flatMap((e) => [`  # ${e.comment}`, `  ${e.command}`]),
  ];
  return lines.join('\n') + '\n';
}

export function programHelp(commands: readonly Pick<CommandDef, 'name' | 'summary'>[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const releases = supportedReleases();
  return [
    `kubelet-hash: the container hash a Kubernetes kubelet computes (io.kubernetes.container.hash), for every release ${releases[0]}–${releases.at(-1)}`,
    '',
    'usage: kubelet-hash COMMAND [OPTIONS] [FILE...]',
    '       kubelet-hash COMMAND --help',
    '       kubelet-hash --version',
    '',
    'Inputs are JSON or YAML (told apart by their first character), one or several documents, NDJSON, Lists',
    '(kubectl get pods -o yaml), Pods, workloads with a pod template, or bare containers; - reads standard input.',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'exit codes:',
    ...EXIT_CODES.map((e) => `  ${e.code}  ${e.meaning}`),
    '',
  ].join('\n');
}
