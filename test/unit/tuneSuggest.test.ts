// The change that makes a kept knob permanent: edits at the recorded line of single- and multi-line calls, and diffs that `patch` really applies.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editCallArguments, statementLines, suggestChanges, unifiedDiff, type KeptKnob } from '../../electron/core/tune/suggest.js';
import type { KnobOutcome } from '../../electron/shared/knobs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-tune-suggest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const applied = (file: string, line: number, what: string | null = null, via: string | null = null): KnobOutcome => ({
  status: 'applied',
  what,
  reason: null,
  file,
  line,
  via,
});

/** Writes `text` as `name` in a fresh folder, and a reader of files. */
function script(name: string, text: string): { file: string; cwd: string; read: (file: string) => string | null } {
  const cwd = fs.mkdtempSync(path.join(dir, 'case-'));
  const file = path.join(cwd, name);
  fs.writeFileSync(file, text);
  return { file, cwd, read: (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null) };
}

/** Applies a patch with GNU patch in `cwd` as a user would (`patch -p1`) and returns the file after. */
function applyPatch(cwd: string, patch: string, file: string): string {
  const result = spawnSync('patch', ['-p1', '--no-backup-if-mismatch'], { cwd, input: patch, encoding: 'utf8' });
  expect(result.status, `${result.stdout}${result.stderr}\n${patch}`).toBe(0);
  return fs.readFileSync(file, 'utf8');
}

const LINES = (text: string) => text.split('\n');

describe('editCallArguments', () => {
  it('adds keyword arguments to a one-line call before its closing parenthesis', () => {
    const lines = ['loader = DataLoader(ds, batch_size=8)  # train'];
    const found = editCallArguments(lines, 0, 'DataLoader', [
      ['num_workers', '4'],
      ['persistent_workers', 'True'],
    ]);
    expect(found?.edit).toEqual({
      start: 0,
      deleteCount: 1,
      insert: ['loader = DataLoader(ds, batch_size=8, num_workers=4, persistent_workers=True)  # train'],
    });
    expect(found?.call).toBe('DataLoader(ds, batch_size=8, num_workers=4, persistent_workers=True)');
  });

  it('replaces a value the call already gives (num_workers=0 written out) instead of adding a second one', () => {
    const found = editCallArguments(['dl = torch.utils.data.DataLoader(ds, num_workers=0, shuffle=True)'], 0, 'DataLoader', [['num_workers', '4']]);
    expect(found?.edit.insert).toEqual(['dl = torch.utils.data.DataLoader(ds, num_workers=4, shuffle=True)']);
  });

  it('adds one argument per line, with a comma after the last one (before its comment), where the call closes on a line of its own', () => {
    const lines = LINES(
      ['    loader = torch.utils.data.DataLoader(', '        dataset,', '        batch_size=8,', '        shuffle=True  # each epoch', '    )', 'x = 1'].join(
        '\n',
      ),
    );
    // Reported at the call's last argument line (as some Pythons do): the call is found above it.
    const found = editCallArguments(lines, 3, 'DataLoader', [
      ['num_workers', '4'],
      ['persistent_workers', 'True'],
    ]);
    expect(found?.edit).toEqual({
      start: 0,
      deleteCount: 5,
      insert: [
        '    loader = torch.utils.data.DataLoader(',
        '        dataset,',
        '        batch_size=8,',
        '        shuffle=True,  # each epoch',
        '        num_workers=4,',
        '        persistent_workers=True,',
        '    )',
      ],
    });
  });

  it('adds to the last line of a call that closes after its last argument, and takes strings with brackets in them as text', () => {
    const lines = ['loader = DataLoader(dataset, collate_fn=make(")"),', '                    batch_size=8)'];
    const found = editCallArguments(lines, 0, 'DataLoader', [['num_workers', '2']]);
    expect(found?.edit.insert).toEqual(['loader = DataLoader(dataset, collate_fn=make(")"),', '                    batch_size=8, num_workers=2)']);
  });

  it('says there is no such call when the line holds none (the file changed since the run)', () => {
    expect(editCallArguments(['x = 1', 'y = 2'], 1, 'DataLoader', [['num_workers', '4']])).toBeNull();
  });
});

describe('statementLines', () => {
  it('follows brackets and backslashes both ways from the recorded line', () => {
    const lines = ['a = 1', 'loss = criterion(', '    model(x),', '    y)', 'b = 2 + \\', '    3'];
    expect(statementLines(lines, 2)).toEqual({ first: 1, last: 3 });
    expect(statementLines(lines, 5)).toEqual({ first: 4, last: 5 });
    expect(statementLines(lines, 0)).toEqual({ first: 0, last: 0 });
  });
});

describe('unifiedDiff', () => {
  it('writes one hunk per change with three lines of context, and one hunk for changes whose contexts touch', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    expect(unifiedDiff('f.py', lines, [{ start: 9, deleteCount: 1, insert: ['LINE 10'] }])).toBe(
      ['--- a/f.py', '+++ b/f.py', '@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+LINE 10', ' line 11', ' line 12', ' line 13', ''].join(
        '\n',
      ),
    );
    const two = unifiedDiff('f.py', lines, [
      { start: 1, deleteCount: 0, insert: ['new'] },
      { start: 5, deleteCount: 1, insert: ['SIX'] },
    ]);
    expect(two.match(/^@@/gmu)).toHaveLength(1);
    expect(two).toContain('@@ -1,9 +1,10 @@');
  });
});

describe('suggestChanges', () => {
  it('a one-line DataLoader: the text names the line and the call, and the diff applies with patch -p1', () => {
    const { file, cwd, read } = script(
      'train.py',
      ['import torch', '', 'loader = torch.utils.data.DataLoader(ds, batch_size=None)', 'for x in loader:', '    pass', ''].join('\n'),
    );
    const kept: KeptKnob[] = [
      { name: 'workers', value: '4', outcomes: [applied(file, 3, 'num_workers=4 (was 0)'), applied(file, 3, 'num_workers=4 (was 0)')] },
      { name: 'persistentWorkers', value: 'on', outcomes: [applied(file, 3)] },
    ];
    const { suggestions, patch } = suggestChanges(kept, cwd, read);
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]).toMatchObject({
      knobs: ['workers=4', 'persistentWorkers=on'],
      file,
      line: 3,
      text: 'train.py:3: DataLoader(..., num_workers=4, persistent_workers=True)',
    });
    expect(suggestions[0]!.diff).toContain('--- a/train.py\n+++ b/train.py\n');
    const after = applyPatch(cwd, suggestions[0]!.diff!, file);
    expect(after.split('\n')[2]).toBe('loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=4, persistent_workers=True)');
    expect(patch).toBe(suggestions[0]!.diff);
  });

  it('a DataLoader call over several lines: the edit keeps its layout, the patched script still compiles', () => {
    const text = [
      'import torch',
      '',
      'def make(dataset):',
      '    return torch.utils.data.DataLoader(',
      '        dataset,',
      '        batch_size=32,',
      '        shuffle=True,',
      '    )',
      '',
    ].join('\n');
    const { file, cwd, read } = script('data.py', text);
    const { suggestions } = suggestChanges([{ name: 'workers', value: '2', outcomes: [applied(file, 4)] }], cwd, read);
    expect(suggestions[0]!.text).toBe('data.py:4: DataLoader(..., num_workers=2)');
    // Only what changes: one line added, none removed.
    const changed = suggestions[0]!.diff!.split('\n').filter((l) => /^[-+](?![-+]{2} )/u.test(l));
    expect(changed).toEqual(['+        num_workers=2,']);
    const after = applyPatch(cwd, suggestions[0]!.diff!, file);
    expect(after.split('\n').slice(3, 9)).toEqual([
      '    return torch.utils.data.DataLoader(',
      '        dataset,',
      '        batch_size=32,',
      '        shuffle=True,',
      '        num_workers=2,',
      '    )',
    ]);
    const compiled = spawnSync('/usr/bin/python3', ['-c', 'import ast,sys; ast.parse(open(sys.argv[1]).read())', file], { encoding: 'utf8' });
    expect(compiled.status, compiled.stderr).toBe(0);
  });

  it('autocast wraps the statement of the model call, a global switch goes after import torch, all in one patch', () => {
    const text = [
      'import torch',
      'model = torch.nn.Linear(4, 1)',
      'for x in batches:',
      '    loss = torch.nn.functional.mse_loss(',
      '        model(x), x[:, :1])',
      '    loss.backward()',
      '',
    ].join('\n');
    const { file, cwd, read } = script('loop.py', text);
    const kept: KeptKnob[] = [
      {
        name: 'autocast',
        value: 'bf16',
        outcomes: [applied(file, 5, "Linear's forward under torch.autocast('cpu', dtype=torch.bfloat16); its output is bfloat16 inside, returned as float32")],
      },
      { name: 'threads', value: '2', outcomes: [applied(file, 1, 'torch.set_num_threads(2)')] },
    ];
    const { suggestions, patch } = suggestChanges(kept, cwd, read);
    expect(suggestions.map((s) => s.text.split(' (')[0])).toEqual([
      'loop.py:5: with torch.autocast("cpu", dtype=torch.bfloat16): around the forward',
      'loop.py:1: after the import of torch: torch.set_num_threads(2)',
    ]);
    const after = applyPatch(cwd, patch!, file);
    expect(after).toBe(
      [
        'import torch',
        'torch.set_num_threads(2)',
        'model = torch.nn.Linear(4, 1)',
        'for x in batches:',
        '    with torch.autocast("cpu", dtype=torch.bfloat16):',
        '        loss = torch.nn.functional.mse_loss(',
        '            model(x), x[:, :1])',
        '    loss.backward()',
        '',
      ].join('\n'),
    );
  });

  it('fp16 loss scaling is suggested with the scaler class the run made (torch.amp.GradScaler("cuda") on torch 2.3 on)', () => {
    const { file, cwd, read } = script('train.py', ['import torch', 'out = model(x)', 'loss.backward()', ''].join('\n'));
    const scaled = (made: string) =>
      suggestChanges(
        [
          {
            name: 'autocast',
            value: 'fp16',
            outcomes: [applied(file, 3, `loss.backward() as scaler.scale(loss).backward(), optimizer.step() as scaler.step(optimizer) (scaler = ${made})`)],
          },
        ],
        cwd,
        read,
      ).suggestions[0]!.text;
    expect(scaled('torch.amp.GradScaler("cuda")')).toBe(
      'train.py:3: scale the loss: scaler = torch.amp.GradScaler("cuda"); scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()',
    );
    expect(scaled('torch.cuda.amp.GradScaler()')).toContain('scaler = torch.cuda.amp.GradScaler();');
  });

  it("a script outside the command's directory: the patch names where it applies, and applies there", () => {
    const { file, cwd: scriptDir, read } = script('train.py', ['import torch', 'loader = torch.utils.data.DataLoader(ds)', ''].join('\n'));
    // Typed as `python /elsewhere/train.py` from another directory.
    const commandDir = fs.mkdtempSync(path.join(dir, 'typed-from-'));
    const { suggestions, patch, patchDir } = suggestChanges([{ name: 'workers', value: '2', outcomes: [applied(file, 2)] }], commandDir, read);
    expect(patchDir).toBe(scriptDir);
    expect(patch).toContain('--- a/train.py\n');
    expect(suggestions[0]!.diff).toContain('--- a/train.py\n');
    expect(applyPatch(patchDir!, patch!, file).split('\n')[1]).toBe('loader = torch.utils.data.DataLoader(ds, num_workers=2)');
    // A script inside the command's directory: its directory, as before.
    const inside = script('train.py', 'loader = DataLoader(ds)\n');
    expect(suggestChanges([{ name: 'workers', value: '2', outcomes: [applied(inside.file, 1)] }], inside.cwd, inside.read).patchDir).toBe(inside.cwd);
  });

  it('says so, with no diff, where the file cannot be read or the line holds no DataLoader call, and for compile', () => {
    const { file, cwd, read } = script('moved.py', 'x = 1\n');
    const { suggestions, patch } = suggestChanges(
      [
        { name: 'workers', value: '4', outcomes: [applied(path.join(cwd, 'gone.py'), 3), applied(file, 1)] },
        { name: 'compile', value: 'on', outcomes: [applied(file, 1)] },
      ],
      cwd,
      read,
    );
    expect(suggestions.map((s) => [s.text, s.diff])).toEqual([
      ['gone.py:3: DataLoader(..., num_workers=4) (the file could not be read; add the arguments by hand)', null],
      [
        'moved.py:1: DataLoader(..., num_workers=4) (no DataLoader( call found at that line: the file may have changed since the run; add the arguments by hand)',
        null,
      ],
      [
        'moved.py:1: model = torch.compile(model) once, before the training loop (the model is called here); no diff: the line that makes the model is not recorded',
        null,
      ],
    ]);
    expect(patch).toBeNull();
  });
});

describe("a Hugging Face Trainer's knobs: kept by its TrainingArguments, not at the line that calls train()", () => {
  // The knobs applied inside the Trainer (its loader, its model's forward); the script's line is `trainer.train()`.
  const TRAINER_SCRIPT = [
    'from transformers import Trainer, TrainingArguments',
    'args = TrainingArguments(',
    '    output_dir="out",',
    '    per_device_train_batch_size=8,',
    '    dataloader_num_workers=0,',
    ')',
    'trainer = Trainer(model=model, args=args, train_dataset=ds)',
    'trainer.train()',
    '',
  ].join('\n');
  const viaTrainer = (file: string): KeptKnob[] => [
    { name: 'workers', value: '4', outcomes: [applied(file, 8, 'num_workers=4 (was 0)', 'transformers')] },
    { name: 'persistentWorkers', value: 'on', outcomes: [applied(file, 8, 'persistent_workers=True', 'transformers')] },
    {
      name: 'autocast',
      value: 'bf16',
      outcomes: [applied(file, 8, "GPT2LMHeadModel's forward under torch.autocast('cuda', dtype=torch.bfloat16)", 'transformers')],
    },
  ];

  it('sets them in the script’s one TrainingArguments( call, as a diff that applies', () => {
    const { file, cwd, read } = script('train.py', TRAINER_SCRIPT);
    const { suggestions, patch } = suggestChanges(viaTrainer(file), cwd, read);
    expect(suggestions).toHaveLength(1);
    expect(suggestions[0]!.knobs).toEqual(['workers=4', 'persistentWorkers=on', 'autocast=bf16']);
    expect(suggestions[0]!.text).toBe(
      'train.py:2: TrainingArguments(..., dataloader_num_workers=4, dataloader_persistent_workers=True, bf16=True) (the Trainer called at train.py:8 makes the DataLoader and calls the model)',
    );
    const after = applyPatch(cwd, patch!, file);
    // The value the script wrote out (dataloader_num_workers=0) is replaced, not given twice.
    expect(after).toContain('    dataloader_num_workers=4,\n');
    expect(after).not.toContain('dataloader_num_workers=0');
    expect(after).toContain('    dataloader_persistent_workers=True,\n    bf16=True,\n)');
    expect(after).toContain('trainer.train()\n');
  });

  it('gives command-line flags where the script reads its TrainingArguments with HfArgumentParser (the examples’ run_clm.py)', () => {
    const { file, cwd, read } = script(
      'run_clm.py',
      [
        'parser = HfArgumentParser((ModelArguments, DataTrainingArguments, TrainingArguments))',
        'trainer = Trainer(model=model, args=training_args)',
        'train_result = trainer.train()',
        '',
      ].join('\n'),
    );
    const kept = viaTrainer(file).map((k) => ({ ...k, outcomes: k.outcomes.map((o) => ({ ...o, line: 3 })) }));
    const { suggestions, patch } = suggestChanges(kept, cwd, read);
    expect(suggestions.map((s) => s.text)).toEqual([
      'run_clm.py:3: run it with --dataloader_num_workers 4 --dataloader_persistent_workers True --bf16 True (its TrainingArguments come from the command line; the Trainer called at run_clm.py:3 makes the DataLoader and calls the model)',
    ]);
    expect(patch).toBeNull();
  });

  it('keeps a loader the script makes itself at its own line, beside the Trainer’s arguments', () => {
    const { file, cwd, read } = script('train.py', `${TRAINER_SCRIPT}eval_loader = DataLoader(eval_ds, batch_size=64)\n`);
    const kept: KeptKnob[] = [
      { name: 'workers', value: '4', outcomes: [applied(file, 8, 'num_workers=4 (was 0)', 'transformers'), applied(file, 9, 'num_workers=4 (was 0)')] },
    ];
    const texts = suggestChanges(kept, cwd, read).suggestions.map((s) => s.text);
    expect(texts).toEqual([
      'train.py:2: TrainingArguments(..., dataloader_num_workers=4) (the Trainer called at train.py:8 makes the DataLoader and calls the model)',
      'train.py:9: DataLoader(..., num_workers=4)',
    ]);
  });
});
