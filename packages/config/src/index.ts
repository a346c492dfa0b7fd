// Public surface of @feedpipe/config: configuration read and checked once, at start.
// A leaf: it depends on no other @feedpipe package.

export {
  allowedOf,
  defaultOf,
  type Env,
  type EnvReading,
  type EnvSchema,
  type EnvValues,
  type EnvVarSpec,
  loadEnv,
  type ReadEnvOptions,
  readEnv,
} from './env-schema.js';
export {
  allowedOption,
  given,
  type OptionSpec,
  type OptionsSchema,
  type OptionValues,
  type ReadOptionsContext,
  readOptions,
  section,
} from './options-schema.js';
