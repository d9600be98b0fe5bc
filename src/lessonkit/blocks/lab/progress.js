// What a {lab} keeps of a learner's progress, for the course index and the progress file (course/progress.js): the
// learner's edited code (counted as course/progress.js counts every editor's code).

export const progress = {
  /** The entries a lab saves in its lesson: its edited code. */
  entries: (block, saved) => [{ part: "code", shape: saved.code, count: "code" }],
};
