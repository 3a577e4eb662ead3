"""The disk's floor for bench/uploads.sh: one writer storing files durably as the upload route does
(write to a temporary file, fsync, rename into place, fsync the folder), for SECONDS, in FOLDER.

    python3 bench/single_writer.py FOLDER SECONDS [BYTES]

Prints `files/s N`. Every file has different bytes. The files stay (the caller removes FOLDER later): removing
them at once would leave the file system busy with recently freed inodes, which slows the next writer's file
creation (ext4's `recently_deleted` showed in the profile of an upload run that followed)."""
import os
import sys
import time

folder, seconds = sys.argv[1], float(sys.argv[2])
size = int(sys.argv[3]) if len(sys.argv) > 3 else 100 * 1024
os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
os.makedirs(os.path.join(folder, "objects"), exist_ok=True)
objects = os.open(os.path.join(folder, "objects"), os.O_RDONLY | os.O_DIRECTORY)
filler = os.urandom(size - 16)
count, start = 0, time.monotonic()
while time.monotonic() - start < seconds:
    name = f"{count:016d}"
    temporary, target = os.path.join(folder, "tmp", name), os.path.join(folder, "objects", name)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, name.encode() + filler)
    os.fsync(fd)
    os.close(fd)
    os.rename(temporary, target)
    os.fsync(objects)
    count += 1
elapsed = time.monotonic() - start
os.close(objects)
print(f"files/s {count / elapsed:.0f}")
