/* skelanim command-line tool: an imported file parsed in a child process
 * (SKELANIM_ISOLATE set; cli.h). assimp is a large C++ parser run on whatever
 * file it is given; a crash or an abort in it would end the tool. The child
 * imports the file and writes the asset back as .glb bytes through a pipe;
 * the parent reads them with the glTF reader, which checks everything. */
#include "cli.h"

#ifdef SK_HAVE_IMPORT

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child sends: a header, then the message or the .glb bytes. */
typedef struct isolate_header {
    int32_t result;
    uint32_t message_len;
    uint64_t glb_size;
} isolate_header;

static bool write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static bool read_all(int fd, void *p, size_t n) {
    char *c = p;
    while (n) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        c += r;
        n -= (size_t)r;
    }
    return true;
}

static void child(int fd, const char *path, const sk_import_options *opts) {
    sk_error err = {0};
    sk_asset *a = NULL;
    void *glb = NULL;
    size_t size = 0;
    isolate_header h = {0};
    sk_result r = sk_import_file(path, opts, &a, &err);
    if (r == SK_OK) r = sk_glb_write_memory(a, &glb, &size, &err);
    h.result = (int32_t)r;
    if (r != SK_OK) h.message_len = (uint32_t)strnlen(err.message, sizeof err.message - 1);
    else h.glb_size = size;
    bool ok = write_all(fd, &h, sizeof h) &&
              (r != SK_OK ? write_all(fd, err.message, h.message_len) : write_all(fd, glb, size));
    _exit(ok ? 0 : 3);
}

sk_result cli_import_isolated(const char *path, const sk_import_options *opts, sk_asset **out, sk_error *err) {
    int fds[2];
    fflush(stdout);
    fflush(stderr);
    if (pipe(fds) != 0) return sk_error_set(err, SK_ERR_IO, "%s: pipe: %s", path, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return sk_error_set(err, SK_ERR_IO, "%s: fork: %s", path, strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], path, opts);
    }
    close(fds[1]);
    isolate_header h = {0};
    bool got = read_all(fds[0], &h, sizeof h);
    void *buf = NULL;
    size_t n = 0;
    char msg[sizeof err->message];
    if (got) {
        n = h.result != SK_OK ? (h.message_len < sizeof msg ? h.message_len : 0) : (size_t)h.glb_size;
        buf = h.result != SK_OK ? msg : malloc(n ? n : 1);
        got = buf && (n == h.glb_size || h.result != SK_OK) && read_all(fds[0], buf, n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sk_result r;
    if (WIFSIGNALED(status))
        r = sk_error_set(err, SK_ERR_PARSE, "%s: the importer crashed (signal %d, %s) in its child process", path,
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (!got)
        r = sk_error_set(err, SK_ERR_IO, "%s: the importer's child process ended without an answer (exit %d)", path,
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else if (h.result != SK_OK) {
        msg[n] = 0;
        r = sk_error_set(err, (sk_result)h.result, "%s", msg);
    } else {
        r = sk_gltf_load_memory(buf, n, NULL, NULL, out, err);
    }
    if (buf && buf != msg) free(buf);
    return r;
}

#endif
