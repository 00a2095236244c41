// What the service image sets for every service's Node (docker/Dockerfile's `ENV`), for the benches that
// start services to run them as the image runs them. image-env.test.ts fails when the two differ.

/** docker/Dockerfile's `NODE_OPTIONS`: 4 MB semi-spaces per isolate (P36; docs/operations.md, Memory). */
export const IMAGE_NODE_OPTIONS = '--max-semi-space-size=4';
