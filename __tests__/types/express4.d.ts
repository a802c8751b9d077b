/** Express 4, installed under an alias for the compatibility test, typed as Express. */
declare module 'express4' {
  import express from 'express';
  export default express;
}
