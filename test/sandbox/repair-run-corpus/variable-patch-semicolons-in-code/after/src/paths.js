export const root = `/srv/app`;
export const logs = `${root}/logs`;
