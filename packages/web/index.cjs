// The built web app's directory (dist/app, made by `vite build`); @anchord/api serves it at "/".
module.exports = { appDir: require("node:path").join(__dirname, "dist", "app") };
