// Rendering of opm's validation error tree, with upstream's vectors (alpha/model/error_test.go).

import { describe, expect, it } from 'vitest';
import type { ErrorTree } from './messages.ts';
import { newTree, renderTree } from './tree.ts';

describe('renderTree (error_test.go vectors)', () => {
  it('Empty', () => {
    expect(renderTree({ message: '', children: [] })).toBe('');
  });

  it('MessageOnly', () => {
    expect(renderTree({ message: 'hello', children: [] })).toBe('hello');
  });

  it('WithSubErrors', () => {
    expect(renderTree({ message: 'hello', children: ['world', 'foobar'] })).toBe('hello:\n├── world\n└── foobar');
  });

  it('WithEmptyLeafSubErrors', () => {
    const t: ErrorTree = { message: 'hello', children: [{ message: 'foo', children: [] }, { message: 'bar', children: ['bar1', 'bar2'] }] };
    expect(renderTree(t)).toBe('hello:\n├── foo\n└── bar:\n    ├── bar1\n    └── bar2');
  });

  it('WithSubSubErrors', () => {
    const t: ErrorTree = {
      message: 'hello',
      children: [
        { message: 'foo', children: ['foo1', 'foo2'] },
        { message: 'bar', children: ['bar1', 'bar2'] },
      ],
    };
    expect(renderTree(t)).toBe('hello:\n├── foo:\n│   ├── foo1\n│   └── foo2\n└── bar:\n    ├── bar1\n    └── bar2');
  });

  it('RecursiveError', () => {
    const children: (ErrorTree | string)[] = [];
    const l1: ErrorTree = { message: 'l1', children };
    children.push('err1', { message: 'l2', children: ['err3', l1, 'err4'] }, 'err2');
    expect(renderTree(l1)).toBe('l1:\n├── err1\n├── l2:\n│   ├── err3\n│   └── err4\n└── err2');
  });
});

describe('newTree', () => {
  it('drops nodes without errors, like orNil', () => {
    const root = newTree('invalid index');
    const pkg = newTree('invalid package "a"');
    pkg.addTree(newTree('invalid channel "x"'));
    root.addTree(pkg);
    expect(root.build()).toBeUndefined();
    pkg.add('boom');
    root.addTree(pkg);
    expect(renderTree(root.build() as ErrorTree)).toBe('invalid index:\n└── invalid package "a":\n    └── boom');
  });
});
