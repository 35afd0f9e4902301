// ESLint rule `clock/only-here`: product code reads the time only through the toolkit's Clock
// (internal/shared/toolkit/clock.ts; docs/decisions/0010-one-clock.md) — `clock.now()` for durations and deadlines,
// `clock.date()` for wall time — handed in through options or the ManagerContext, so a test can move time by hand.
// Refused: `Date.now` (called or passed as a function), `new Date()` and `Date()` with no arguments. `new Date(x)` with
// an argument parses or converts and is fine. eslint.config.js applies it to api/, internal/ and cmd/ (not tests,
// testing.ts or the clock's own file).

const read = 'reads the system clock; take a Clock (internal/shared/toolkit) from options or the ManagerContext and call';

const rule = {
  meta: {
    type: 'problem',
    docs: { description: "read the time only through the toolkit's Clock" },
    schema: [],
    messages: {
      now: `Date.now ${read} clock.date().getTime() (wall ms) or clock.now() (monotonic ms, for durations)`,
      date: `new Date() ${read} clock.date(); new Date(x) with an argument is fine`,
    },
  },
  create(context) {
    const isDate = (node) => node.type === 'Identifier' && node.name === 'Date';
    return {
      MemberExpression: (node) => {
        if (isDate(node.object) && !node.computed && node.property.type === 'Identifier' && node.property.name === 'now') {
          context.report({ node, messageId: 'now' });
        }
      },
      NewExpression: (node) => {
        if (isDate(node.callee) && node.arguments.length === 0) context.report({ node, messageId: 'date' });
      },
      CallExpression: (node) => {
        if (isDate(node.callee)) context.report({ node, messageId: 'date' });
      },
    };
  },
};

export default { rules: { 'only-here': rule } };
