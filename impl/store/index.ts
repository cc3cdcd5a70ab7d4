/** The DHSched store: one atomic Lua script per protocol step, one typed function per script. */
export { StoreCode, StoreError, isStoreError, storeError } from './codes.js';
export { cellKeys, tokenOf, type CellKeys } from './keys.js';
export { MAX_TEXT_BYTES } from './schema.js';
export {
  defineScripts,
  queueCall,
  readReply,
  runCall,
  type RedisClient,
  type ScriptCall,
} from './scripts.js';
export * from './steps.js';
