export {
  type ApplyResult,
  type Converter,
  identityConverter,
  type UpdateResult,
  Updater,
  type UpdaterOptions,
} from './updater.ts';
