// An esbuild plugin for the bundles: find-my-way (Fastify's router) compiles up to three functions with
// `new Function` for every route it adds (a prefix matcher per static node, a params-object maker and a
// constraints matcher per handler). With about 1,060 routes that was 200-250 ms of a 1.2 s start-up on a
// 2-core machine (profile in bench/README.md), and code made by `new Function` is never in the bundle's
// V8 code cache. The bundles get plain closures instead, with the same results:
// - a prefix matcher is `path.startsWith(prefix, i)` (the compiled one compares the characters after the
//   first, which the router has already matched to pick the node);
// - the params object gets the same names in the same order from the same arguments;
// - the constraints matcher, which only routes with constraints (host, version) ever call, and none of
//   ours has, is compiled by the original code on its first call.
// Each rewrite must find the text it replaces: an upgrade of find-my-way that changes it fails the build.
import { type Rewrite, sourceRewrites } from './source-rewrites.js';

const REWRITES: Rewrite[] = [
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
    from: "return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`) // eslint-disable-line",
    to: 'return function matchPrefix (path, i) { return path.startsWith(prefix, i) }',
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    from: "return new Function('NullObject', fnBody.join('\\n'))(NullObject)  // eslint-disable-line",
    to: `const names = params.slice()
    return function _createParamsObject (param0, param1, param2, param3, extraParams) {
      const made = new NullObject()
      const count = names.length
      if (count > 0) made[names[0]] = param0
      if (count > 1) made[names[1]] = param1
      if (count > 2) made[names[2]] = param2
      if (count > 3) made[names[3]] = param3
      for (let i = 4; i < count; i++) made[names[i]] = extraParams[i - 4]
      return made
    }`,
  },
  {
    file: /[\\/]find-my-way[\\/]lib[\\/]handler-storage\.js$/,
    from: '  _compileGetHandlerMatchingConstraints (constrainer) {\n',
    to: `  _compileGetHandlerMatchingConstraints (constrainer) {
    this._getHandlerMatchingConstraints = function (derivedConstraints) {
      this._compileGetHandlerMatchingConstraintsNow(constrainer)
      return this._getHandlerMatchingConstraints(derivedConstraints)
    }
  }

  _compileGetHandlerMatchingConstraintsNow (constrainer) {
`,
  },
];

export const routerClosures = sourceRewrites('router-closures', REWRITES);
