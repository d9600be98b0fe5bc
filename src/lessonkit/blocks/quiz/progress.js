// What a {quiz} keeps of a learner's progress, for the course index and the progress file (course/progress.js): its
// answers, under the block's version, counted by question.
// The page's words (page/i18n.js: main.js's one copy, on globalThis.lessonkitWords), read, not imported.
const num = (value, digits) => globalThis.lessonkitWords.num(value, digits);
const tn = (key, n, params) => globalThis.lessonkitWords.tn(key, n, params);

export const progress = {
  /** The entries a quiz saves in its lesson: its answers, {question number: option value}. */
  entries: (block, saved) => [{ part: block.version, shape: saved.quiz(saved.questions(block.questions)), count: "questions" }],
  counts: {
    questions: {
      order: 10,
      meter: true, // the course index's meter of a lesson measures it
      add: (sum, answers, block) => {
        sum.total += block.questions;
        sum.done += answers ? Object.keys(answers).length : 0;
      },
      words: ({ done, total }) => (total ? tn("progress.questions", total, { done: num(done) }) : ""),
    },
  },
};
