// Types of ajv-node.js beside this file (the form of `#ajv` in Node): the same as ajv.d.ts.
export { default } from './ajv.js'
