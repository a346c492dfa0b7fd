process.stderr.write('not yet\n');
