// What an {exercise} keeps of a learner's progress, for the course index and the progress file (course/progress.js):
// its state (passed, attempts, hints, solution) under the block's version, and the learner's code.
// The page's words (page/i18n.js: main.js's one copy, on globalThis.lessonkitWords), read, not imported.
const num = (value, digits) => globalThis.lessonkitWords.num(value, digits);
const tn = (key, n, params) => globalThis.lessonkitWords.tn(key, n, params);

export const progress = {
  /** The entries an exercise saves in its lesson: its state, and its edited code. */
  entries: (block, saved) => [{ part: block.version, shape: saved.exercise, count: "exercises" },
    { part: "code", shape: saved.exerciseCode, count: "code" }],
  counts: {
    exercises: {
      order: 30,
      meter: true, // the course index's meter of a lesson measures it
      add: (sum, state) => {
        sum.total += 1;
        sum.done += state && state.passed ? 1 : 0;
      },
      words: ({ done, total }) => (total ? tn("progress.exercises", total, { done: num(done) }) : ""),
    },
  },
};
