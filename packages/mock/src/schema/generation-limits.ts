/**
 * The largest lower bound on a size MockGPT generates: a bigger `minLength` or `minItems` would make one
 * value use gigabytes (or take minutes), so it is refused up front instead of exhausting the process.
 */
export const MAX_GENERATED_SIZE = 10_000
