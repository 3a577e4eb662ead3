// The component's entry: the module bound to the real host (componentize-js builds from this file).
import poll from './module.js';
import { host } from '../../../sdk-js/src/trellis-host.js';

const bound = poll.bind(host);
export const moduleInfo = bound.moduleInfo;
export const spaceHooks = bound.spaceHooks;
