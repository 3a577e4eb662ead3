// The component's entry: the module bound to the real host (`npm run build` builds from this file).
import mod from './module.js';
import { host } from './sdk/trellis-host.js';

const bound = mod.bind(host);
export const moduleInfo = bound.moduleInfo;
export const spaceHooks = bound.spaceHooks;
